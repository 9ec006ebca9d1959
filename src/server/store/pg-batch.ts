/**
 * Group commit on PostgreSQL. Transactions of one process that write, and the audit events of those
 * that only read, share one database transaction (a batch): a writer takes its turn on the batch's
 * connection inside a SAVEPOINT (a failing writer rolls back only itself; a writer whose first change
 * is one conditional statement, SqlExecutor.runIf, takes its turn without one: see Turn), readers add their events;
 * when no writer is inside and the previous batch has committed, the batch appends every event to the
 * chain in one statement, moves the head once and commits. Only then are its waiters answered; a
 * failed batch fails every waiter. Writers take their turns under a fill lock (see beginFill), so the
 * next batch's writers run while this one commits. A waiter whose events assumed a generation that
 * has moved on gets StaleGenerationError: its events were not kept (audit-batch.ts).
 */
import type pg from 'pg'
import { VaultError } from '../../errors.js'
import { appendChained, type ChainHead, type PendingEvent, type RawQuery } from '../audit/audit-batch.js'
import { BatchAbortedError, StaleGenerationError, type Generation } from './driver.js'
import { advisoryKey, statement } from './pg-query.js'

interface Batch {
  client?: pg.PoolClient
  events: PendingEvent[]
  /** Writers that joined, and those of them not yet done. */
  joined: number
  active: number
  /** The end of the queue of writers waiting for their turn. */
  turns: Promise<void>
  failure?: unknown
  /** After the commit: the events not kept, and the generation read while finding them. */
  stale?: Set<PendingEvent>
  current?: Generation
  done: Promise<void>
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * A writer's turn on a batch: its connection until it leaves or abandons. A guarded turn runs inside
 * a SAVEPOINT, and abandoning it rolls back to it. An unguarded one (entered for a conditional first
 * statement) has no savepoint: once it has changed rows, or once a statement of it has failed, it
 * cannot be rolled back alone, and its whole batch fails (the batch's other transactions get
 * BatchAbortedError).
 */
export interface Turn {
  client: pg.PoolClient
  /** Opens the SAVEPOINT before a change, unless the turn has one or has already changed rows without one. */
  guard(): Promise<void>
  /** A statement of the turn changed rows. */
  changed(): void
  /** A statement of the turn failed (the database transaction is aborted): unguarded, the batch fails. */
  failed(): void
  /** Ends the turn with the writer's events; resolves when the batch has committed. */
  leave(events: PendingEvent[]): Promise<void>
  /** Rolls the writer's statements back (to its SAVEPOINT, or by failing the batch) and ends the turn. */
  abandon(): Promise<void>
}

const ignore = () => undefined

/** The session-level advisory lock a batch holds while its writers take their turns. */
const fillLock = advisoryKey('vault:batch-fill')

/**
 * Begins a batch's transaction under the fill lock and, when `guarded`, opens its first writer's
 * SAVEPOINT (one round trip). One batch at a time, across every replica, has writers inside, so the row locks of two
 * batches' writers never wait for each other in a cycle. The lock is released when the last writer
 * has left, before the batch appends to the chain (under the head's row lock) and commits: the next
 * batch's writers run while this one waits for its commit to be durable. Lock order: the fill lock,
 * rows, then (committing) the chain head, then the generation row (deferred triggers): no cycle.
 */
async function beginFill(client: pg.PoolClient, guarded: boolean): Promise<void> {
  await client.query(`BEGIN; SELECT pg_advisory_lock(${fillLock})${guarded ? '; SAVEPOINT work' : ''}`)
}

/** audit-batch.ts's RawQuery on a connection: prepared statements with values, else simple queries. */
function rawQuery(client: pg.PoolClient): RawQuery {
  return async (text, values) => {
    if (values) return client.query(statement(text, values))
    const result = (await client.query(text)) as pg.QueryResult | pg.QueryResult[]
    return Array.isArray(result) ? result.at(-1)! : result
  }
}

function newBatch(): Batch {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const done = new Promise<void>((ok, fail) => {
    resolve = ok
    reject = fail
  })
  done.catch(ignore)
  return { events: [], joined: 0, active: 0, turns: Promise.resolve(), done, resolve, reject }
}

export class GroupCommit {
  private open: Batch | undefined
  private committing: Promise<void> | undefined
  /** The head this process last committed (undefined after a failure or before the first batch). */
  private head: ChainHead | undefined
  /** Whether the last append found the head moved by another process (a replica). */
  private contended = false

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxWriters = 32,
  ) {}

  /**
   * Waits for a writer's turn in the filling batch (BEGIN on its first turn), opening its SAVEPOINT
   * unless `guarded` is false.
   */
  async enter({ guarded = true }: { guarded?: boolean } = {}): Promise<Turn> {
    let batch = (this.open ??= newBatch())
    while (batch.joined >= this.maxWriters) {
      await batch.done.catch(ignore)
      batch = this.open ??= newBatch()
    }
    batch.joined++
    batch.active++
    const previous = batch.turns
    let release!: () => void
    batch.turns = new Promise((resolve) => (release = resolve))
    await previous
    const leave = (events: PendingEvent[]) => {
      batch.events.push(...events)
      batch.active--
      release()
      this.settle(batch)
      return batch.done
    }
    const spoil = (error: unknown = new BatchAbortedError()) => {
      batch.failure ??= error
    }
    try {
      if (batch.failure !== undefined) throw batch.failure
      if (!batch.client) {
        batch.client = await this.pool.connect()
        await beginFill(batch.client, guarded)
      } else if (guarded) {
        await batch.client.query('SAVEPOINT work')
      }
    } catch (error) {
      spoil(error)
      void leave([])
      throw error
    }
    const client = batch.client
    let changedUnguarded = false
    return {
      client,
      guard: async () => {
        if (guarded || changedUnguarded) return
        await client.query('SAVEPOINT work').catch((error: unknown) => {
          spoil(error)
          throw error
        })
        guarded = true
      },
      changed: () => {
        if (!guarded) changedUnguarded = true
      },
      failed: () => {
        if (!guarded) spoil()
      },
      leave,
      abandon: async () => {
        if (guarded) await client.query('ROLLBACK TO SAVEPOINT work').catch(spoil)
        else if (changedUnguarded) spoil()
        void leave([])
      },
    }
  }

  /**
   * Adds the events of a transaction that wrote nothing else; resolves when they are committed, or
   * rejects with StaleGenerationError when the generation they assume had moved on (none was kept).
   */
  async append(events: PendingEvent[]): Promise<void> {
    const batch = (this.open ??= newBatch())
    batch.events.push(...events)
    this.settle(batch)
    await batch.done
    if (events.some((event) => batch.stale?.has(event))) throw new StaleGenerationError(batch.current)
  }

  /** Resolves when nothing is filling or committing. */
  async idle(): Promise<void> {
    while (this.open || this.committing) {
      await (this.committing ?? this.open?.done)?.catch(ignore)
      if (this.open && !this.committing) this.settle(this.open)
    }
  }

  private settle(batch: Batch): void {
    if (batch !== this.open || batch.active > 0 || this.committing) return
    this.open = undefined
    this.committing = this.commit(batch).finally(() => {
      this.committing = undefined
      if (this.open) this.settle(this.open)
    })
  }

  private async commit(batch: Batch): Promise<void> {
    const { client } = batch
    try {
      if (batch.failure !== undefined) throw batch.failure
      if (client) await client.query(`SELECT pg_advisory_unlock(${fillLock})`)
      if (batch.events.length > 0) {
        const runner = client ?? (await this.pool.connect())
        try {
          const appended = await appendChained(rawQuery(runner), batch.events, {
            expected: this.head,
            inTransaction: client !== undefined,
            contended: this.contended,
          })
          this.head = appended.head
          this.contended = appended.moved
          batch.stale = new Set(appended.stale)
          batch.current = appended.current
        } finally {
          if (!client) runner.release()
        }
      }
      if (client) {
        // PostgreSQL answers COMMIT of a transaction in which a statement failed with ROLLBACK
        const ended = await client.query('COMMIT')
        if (ended.command !== 'COMMIT')
          throw new VaultError(`the batch's transaction ended in ${ended.command}`)
        client.release()
      }
      batch.resolve()
    } catch (error) {
      this.head = undefined
      if (client) {
        await client.query('ROLLBACK').catch(ignore)
        client.release(true)
      }
      batch.reject(error)
    }
  }
}
