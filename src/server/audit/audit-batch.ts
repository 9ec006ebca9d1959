/**
 * The chain append of a group commit (PostgreSQL): the events of concurrent transactions are hashed
 * one after another from the head, inserted, and the head moved once, in ONE statement that applies
 * only when the head is still where this process last left it. When another process (a replica)
 * moved it, the head is read under its row lock and the batch chained again, so processes sharing
 * a database take turns on one chain: no fork (the sequence number is the key), no gap.
 *
 * An event may assume a database generation (the one whose cached rows its request was answered
 * from): the statement then applies only while that generation is current, and an event whose
 * generation has moved on is not kept but returned as stale, for its request to be answered again
 * from rows read afresh (read-cache.ts). The statement's snapshot is taken after every request of the
 * batch arrived, so a kept event's answer held when its request arrived.
 */
import { IntegrityError } from '../../errors.js'
import { auditColumns, auditHeadMac, eventFields, eventHash, type AuditEvent } from './audit.js'
import type { Generation } from '../store/driver.js'
import { assumesAny, laterCounter, stillHolds } from '../store/pg-generation.js'

/** An event waiting for its group commit, with the audit key that chains it. */
export interface PendingEvent {
  key: Buffer
  event: Required<AuditEvent>
  /** The counters of the generation the event's answer relied on, when not yet checked. */
  assumes?: Partial<Generation>
}

/** What a chain append did: the head it left and the events it did not keep (their generation moved). */
export interface Appended {
  head: ChainHead | undefined
  stale: PendingEvent[]
  /** The current generation, when the append read it. */
  current?: Generation
}

/** The newest event of the chain: its sequence number and hash. */
export interface ChainHead {
  seq: number
  hash: string
}

/**
 * Runs a statement with `$n` placeholders and `values` (a prepared statement, parsed once per
 * connection), or, without values, one or more statements in one round trip (the last one's rows).
 */
export type RawQuery = (
  text: string,
  values?: unknown[],
) => Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>

const appendSql = `WITH moved AS (
    UPDATE audit_head SET seq = $1, hash = $2, mac = $3 WHERE id = 1 AND seq = $4 AND hash = $5
      AND (($19::bigint IS NULL AND $20::bigint IS NULL) OR EXISTS (SELECT 1 FROM vault_generation WHERE id = 1
        AND ($19::bigint IS NULL OR auth = $19::bigint) AND ($20::bigint IS NULL OR content = $20::bigint)))
    RETURNING id)
  INSERT INTO audit_events (${auditColumns})
  SELECT event.* FROM unnest($6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
    $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[]) AS event
  WHERE EXISTS (SELECT 1 FROM moved)`

const families = ['auth', 'content'] as const

/**
 * The newest value each counter is assumed at (counters only grow, so an event assuming an older
 * value is stale already), the events that assume an older one, and the rest.
 */
function byAssumption(pending: PendingEvent[]) {
  const newest: Partial<Generation> = {}
  for (const { assumes } of pending) {
    for (const family of families) {
      const value = assumes?.[family]
      const known = newest[family]
      if (value !== undefined && (known === undefined || laterCounter(value, known))) newest[family] = value
    }
  }
  const holds = ({ assumes }: PendingEvent) => !assumes || stillHolds(assumes, newest)
  return { newest, stale: pending.filter((event) => !holds(event)), kept: pending.filter(holds) }
}

/** The parameters of `appendSql` that chain `pending` after `head`, and the head they leave. */
function chainAfter(
  head: ChainHead,
  pending: PendingEvent[],
  assumes?: Partial<Generation>,
): { values: unknown[]; head: ChainHead } {
  const columns: (string | number | null)[][] = Array.from({ length: 13 }, () => [])
  const at = new Date().toISOString()
  let previous = head.hash
  let seq = head.seq
  for (const { key, event } of pending) {
    seq += 1
    const hash = eventHash(key, { previous, seq, at }, event)
    const row = [...eventFields(seq, at, event), previous, hash]
    row.forEach((value, index) => columns[index]!.push(value))
    previous = hash
  }
  const mac = auditHeadMac(pending.at(-1)!.key, seq, previous)
  return {
    values: [
      seq,
      previous,
      mac,
      head.seq,
      head.hash,
      ...columns,
      assumes?.auth ?? null,
      assumes?.content ?? null,
    ],
    head: { seq, hash: previous },
  }
}

/** The head under its row lock and, in the same statement, the generations (a read after every arrival). */
const lockedHeadSql = `SELECT h.seq, h.hash, g.auth::text AS auth, g.content::text AS content
  FROM audit_head h LEFT JOIN vault_generation g ON g.id = 1 WHERE h.id = 1 FOR UPDATE OF h`

async function lockedHead(
  query: RawQuery,
  opening: boolean,
): Promise<{ head: ChainHead; generation: Generation | undefined }> {
  // outside a transaction, BEGIN rides in the same round trip (the last statement's rows are answered)
  const { rows } = await query(opening ? `BEGIN; ${lockedHeadSql}` : lockedHeadSql)
  const row = rows[0]
  if (!row) {
    throw new IntegrityError(
      'the audit log has no head row (it was wiped outside the vault); nothing was written',
      { hint: 'run vault audit verify, then restore the database from a backup' },
    )
  }
  const generation = row.auth === null ? undefined : { auth: String(row.auth), content: String(row.content) }
  return { head: { seq: Number(row.seq), hash: String(row.hash) }, generation }
}

/**
 * Appends the events of `pending` that still hold (see above) to the chain; returns the new head and
 * the stale events. `expected` is the head this process last wrote (undefined: unknown). When the
 * head moved or a generation did, the head is read under its row lock with the generation, and the
 * events that still hold chained; outside a transaction (`inTransaction` false) that retry opens a
 * transaction of its own. With `contended` (the previous append found the head moved by another
 * process), the conditional attempt, likely to miss again, is skipped. `moved` says whether the
 * locked head was not where `expected` said.
 */
export async function appendChained(
  query: RawQuery,
  pending: PendingEvent[],
  options: { expected: ChainHead | undefined; inTransaction: boolean; contended?: boolean },
): Promise<Appended & { moved: boolean }> {
  const { expected } = options
  const { newest, stale, kept } = byAssumption(pending)
  if (kept.length === 0) return { head: expected, stale, moved: false }
  if (expected && !options.contended) {
    const attempt = chainAfter(expected, kept, newest)
    const { rowCount } = await query(appendSql, attempt.values)
    if (rowCount === kept.length) return { head: attempt.head, stale, moved: false }
  }
  const opening = !options.inTransaction
  try {
    const { head, generation } = await lockedHead(query, opening)
    const moved = head.seq !== expected?.seq || head.hash !== expected.hash
    if (assumesAny(newest) && !generation) {
      throw new IntegrityError('the vault_generation row is missing (it was deleted outside the vault)', {
        hint: 'restart one vault server on this database: its start-up installs the row again',
      })
    }
    const holds = kept.filter(({ assumes }) => !assumes || stillHolds(assumes, generation!))
    const late = kept.filter((event) => !holds.includes(event))
    let appended: Appended = { head, stale: [...stale, ...late], current: generation }
    if (holds.length > 0) {
      const chained = chainAfter(head, holds)
      const { rowCount } = await query(appendSql, chained.values)
      if (rowCount !== holds.length) throw new IntegrityError('the audit head moved under its row lock')
      appended = { ...appended, head: chained.head }
    }
    if (opening) await query('COMMIT')
    return { ...appended, moved }
  } catch (error) {
    if (opening) await query('ROLLBACK').catch(() => undefined)
    throw error
  }
}
