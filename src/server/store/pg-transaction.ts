/**
 * One transaction of the PostgreSQL driver. Its reads run on a pooled connection of their own, one
 * statement at a time (READ COMMITTED gives each statement a fresh snapshot either way), so readers
 * run side by side. Its first write (or row lock) takes a turn in the filling group-commit batch and
 * runs every later statement there: inside a SAVEPOINT, unless that first write is a conditional
 * statement (runIf), which runs unguarded; the SAVEPOINT is then taken before a later change, unless
 * the conditional one changed rows (see pg-batch.ts's Turn). Audit events wait in memory and are chained at the batch commit;
 * the transaction's promise resolves only after that commit (see pg-batch.ts).
 *
 * A transaction that assumes a generation (its request used cached rows of it) checks it once: one
 * that writes reads the current generation before its first write, one that only reads has its
 * events kept only while the generation holds (audit-batch.ts), or reads it when it has none or its
 * work failed.
 */
import type pg from 'pg'
import type { PendingEvent } from '../audit/audit-batch.js'
import {
  StaleGenerationError,
  type AssumedGeneration,
  type SqlExecutor,
  type SqlRow,
  type SqlValue,
} from './driver.js'
import type { GroupCommit, Turn } from './pg-batch.js'
import { assumesAny, stillHolds } from './pg-generation.js'
import { statement } from './pg-query.js'

export class PgTransaction {
  private reader: Promise<pg.PoolClient> | undefined
  private entering: Promise<Turn> | undefined
  private turn: Turn | undefined
  /** The first statement of its turn that failed (the database transaction is aborted since). */
  private failedStatement: { error: unknown } | undefined
  private readonly events: PendingEvent[] = []

  constructor(
    private readonly pool: pg.Pool,
    private readonly batches: GroupCommit,
    /** The generation to check, until it is checked. */
    private assumes?: AssumedGeneration,
  ) {}

  readonly executor: SqlExecutor = {
    all: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      (await this.query<T>(sql, params, await this.connection())).rows,
    values: async (sql, params = []) =>
      (await this.query<SqlValue[]>(sql, params, await this.connection(), 'array')).rows,
    run: async (sql, params = []) =>
      (await this.query(sql, params, await this.writer('change'))).rowCount ?? 0,
    runTogether: async (statements) => {
      // `?` placeholders are numbered in text order, so the texts and their values concatenate as is
      const clauses = statements.slice(0, -1).map(({ sql }, index) => `write_${index} AS (${sql})`)
      const sql = `WITH ${clauses.join(', ')} ${statements.at(-1)!.sql}`
      await this.query(
        sql,
        statements.flatMap(({ params }) => params),
        await this.writer('change'),
      )
    },
    runIf: async (sql, params) => {
      const changed = (await this.query(sql, params, await this.writer('conditional'))).rowCount ?? 0
      if (changed > 0) this.turn!.changed()
      return changed
    },
    lockRows: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      (await this.query<T>(`${sql} FOR UPDATE`, params, await this.writer('lock'))).rows,
    deferAudit: (key, event) => void this.events.push({ key, event }),
  }

  /**
   * Ends a transaction whose work succeeded: resolves once its changes and events are committed. A
   * work that went on after a statement of its turn failed is rolled back and fails with that error.
   */
  async commit(): Promise<void> {
    await this.releaseReader()
    if (this.entering) await this.entering
    if (this.failedStatement) {
      await this.rollback()
      throw this.failedStatement.error
    }
    if (this.turn) await this.turn.leave(this.events)
    else if (this.events.length > 0) {
      const assumes = this.assumes?.relied()
      const events =
        assumes && assumesAny(assumes) ? this.events.map((event) => ({ ...event, assumes })) : this.events
      await this.batches.append(events)
    } else await this.checkGeneration()
  }

  /**
   * Ends a transaction whose work failed: nothing of it is kept. The failure is an answer too (a 404
   * for a missing secret): when it relied on a generation not yet checked, StaleGenerationError if
   * that generation has moved on, so that a revoked token is refused rather than answered.
   */
  async rollback(): Promise<void> {
    await this.releaseReader()
    const turn = this.entering ? await this.entering.catch(() => undefined) : undefined
    await turn?.abandon()
    await this.checkGeneration()
  }

  private query<R>(sql: string, params: SqlValue[], client: pg.ClientBase, rowMode?: 'array') {
    const result = client.query<R extends unknown[] ? R : never>(
      statement(sql, params, rowMode) as pg.QueryArrayConfig,
    ) as unknown as Promise<pg.QueryResult<R & pg.QueryResultRow>>
    const turn = this.turn
    if (turn && client === turn.client) {
      result.catch((error: unknown) => {
        this.failedStatement ??= { error }
        turn.failed()
      })
    }
    return result
  }

  private async connection(): Promise<pg.ClientBase> {
    if (this.entering) return (await this.entering).client
    return (this.reader ??= this.pool.connect())
  }

  /**
   * The turn's connection for a statement that locks rows, changes them, or changes them only when
   * its WHERE holds (`conditional`): entering the batch on the first, guarded unless that one is
   * conditional; a change takes the SAVEPOINT first when the turn can still have one (Turn.guard).
   */
  private async writer(kind: 'lock' | 'change' | 'conditional'): Promise<pg.ClientBase> {
    this.entering ??= this.releaseReader()
      .then(() => this.checkGeneration())
      .then(() => this.batches.enter({ guarded: kind !== 'conditional' }))
    const turn = (this.turn = await this.entering)
    if (kind === 'change') await turn.guard()
    return turn.client
  }

  /** Reads the current generation when one is relied on: StaleGenerationError when it moved on. */
  private async checkGeneration(): Promise<void> {
    const assumed = this.assumes
    this.assumes = undefined
    const relied = assumed?.relied()
    if (!relied || !assumesAny(relied)) return
    const current = await assumed!.current()
    if (!stillHolds(relied, current)) throw new StaleGenerationError(current)
  }

  private async releaseReader(): Promise<void> {
    const reader = this.reader
    this.reader = undefined
    if (reader) (await reader).release()
  }
}
