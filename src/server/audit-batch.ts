/**
 * The chain append of a group commit (PostgreSQL): the events of concurrent transactions are hashed
 * one after another from the head, inserted, and the head moved once, in ONE statement that applies
 * only when the head is still where this process last left it. When another process (a replica)
 * moved it, the head is read under its row lock and the batch chained again, so processes sharing
 * a database take turns on one chain: no fork (the sequence number is the key), no gap.
 */
import { IntegrityError } from '../errors.js'
import { auditColumns, auditHeadMac, eventFields, eventHash, type AuditEvent } from './audit.js'

/** An event waiting for its group commit, with the audit key that chains it. */
export interface PendingEvent {
  key: Buffer
  event: Required<AuditEvent>
}

/** The newest event of the chain: its sequence number and hash. */
export interface ChainHead {
  seq: number
  hash: string
}

/** Runs one statement with `$n` placeholders. */
export type RawQuery = (
  text: string,
  values?: unknown[],
) => Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>

const appendSql = `WITH moved AS (
    UPDATE audit_head SET seq = $1, hash = $2, mac = $3 WHERE id = 1 AND seq = $4 AND hash = $5 RETURNING id)
  INSERT INTO audit_events (${auditColumns})
  SELECT * FROM unnest($6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
    $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[])
  WHERE EXISTS (SELECT 1 FROM moved)`

/** The parameters of `appendSql` that chain `pending` after `head`, and the head they leave. */
function chainAfter(head: ChainHead, pending: PendingEvent[]): { values: unknown[]; head: ChainHead } {
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
  return { values: [seq, previous, mac, head.seq, head.hash, ...columns], head: { seq, hash: previous } }
}

async function lockedHead(query: RawQuery): Promise<ChainHead> {
  const { rows } = await query(`SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE`)
  const head = rows[0]
  if (!head) {
    throw new IntegrityError(
      'the audit log has no head row (it was wiped outside the vault); nothing was written',
      { hint: 'run vault audit verify, then restore the database from a backup' },
    )
  }
  return { seq: Number(head.seq), hash: String(head.hash) }
}

/**
 * Appends `pending` (not empty) to the chain and returns the new head. `expected` is the head this
 * process last wrote (undefined: unknown). Outside a transaction (`inTransaction` false) a retry
 * after another process moved the head opens one of its own.
 */
export async function appendChained(
  query: RawQuery,
  pending: PendingEvent[],
  options: { expected: ChainHead | undefined; inTransaction: boolean },
): Promise<ChainHead> {
  if (options.expected) {
    const attempt = chainAfter(options.expected, pending)
    const { rowCount } = await query(appendSql, attempt.values)
    if (rowCount === pending.length) return attempt.head
  }
  const retry = async () => {
    const chained = chainAfter(await lockedHead(query), pending)
    const { rowCount } = await query(appendSql, chained.values)
    if (rowCount !== pending.length) throw new IntegrityError('the audit head moved under its row lock')
    return chained.head
  }
  if (options.inTransaction) return retry()
  await query('BEGIN')
  try {
    const head = await retry()
    await query('COMMIT')
    return head
  } catch (error) {
    await query('ROLLBACK').catch(() => undefined)
    throw error
  }
}
