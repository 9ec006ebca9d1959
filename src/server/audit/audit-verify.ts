/**
 * Verifying the audit log: the walk of the chain (every link and hash, then the MAC'd head that holds
 * the event count), whole or from a point verified before, and the cheap start-up check of the head.
 */
import { timingSafeEqual } from 'node:crypto'
import { auditColumns, auditHeadMac, eventHash, eventOfRow, genesisHash } from './audit.js'
import { paceRows } from '../../process/gc-pacer.js'
import type { SqlDriver, SqlExecutor, SqlRow } from '../store/index.js'

export interface AuditVerification {
  ok: boolean
  events: number
  /** The first sequence number whose hash, link or position is wrong. */
  brokenAt?: number
  reason?: string
  /** The hash of the last event (the genesis hash for an empty log) when the chain verifies. */
  head?: string
}

/** A verified point of the chain: an event's sequence number and hash (0 and the genesis hash: none). */
export interface VerifiedPoint {
  seq: number
  hash: string
}

/**
 * Walks the chain and checks every link, every hash and the head. The head is read first and the
 * walk follows it forward, so events appended meanwhile (another replica) are neither a false alarm
 * nor skipped; events beyond the head that no head covers are reported. From `from` (a point this
 * process verified before), the walk starts after it, once the event there still has its hash:
 * only the events appended since are read. Without it, from the first event.
 */
export async function verifyAuditChain(
  driver: SqlDriver,
  key: Buffer,
  from?: VerifiedPoint,
): Promise<AuditVerification> {
  return driver.transaction(async (tx) => {
    let previous = genesisHash
    let expectedSeq = 1
    if (from && from.seq > 0) {
      const [event] = await tx.all(`SELECT hash FROM audit_events WHERE seq = ?`, [from.seq])
      if (event?.hash !== from.hash) {
        return {
          ok: false,
          events: from.seq - 1,
          brokenAt: from.seq,
          reason: 'an event verified before was changed or removed',
        }
      }
      previous = from.hash
      expectedSeq = from.seq + 1
    }
    const pageSize = 500
    let head = await readHead(tx)
    let limit = head ? Number(head.seq) : 2_147_483_647 // the largest INTEGER on PostgreSQL
    for (;;) {
      const rows = await tx.all(
        `SELECT ${auditColumns} FROM audit_events WHERE seq >= ? AND seq <= ? ORDER BY seq LIMIT ?`,
        [expectedSeq, limit, pageSize],
      )
      paceRows(rows.length)
      for (const row of rows) {
        const seq = Number(row.seq)
        if (seq !== expectedSeq)
          return { ok: false, events: expectedSeq - 1, brokenAt: expectedSeq, reason: 'missing event' }
        const event = eventOfRow(row)
        if (row.prev_hash !== previous)
          return { ok: false, events: seq - 1, brokenAt: seq, reason: 'broken link' }
        if (eventHash(key, { previous, seq, at: String(row.at) }, event) !== row.hash) {
          return { ok: false, events: seq - 1, brokenAt: seq, reason: 'event was modified' }
        }
        previous = String(row.hash)
        expectedSeq = seq + 1
      }
      if (rows.length === pageSize) continue
      if (!head) break
      const [last] = await tx.all(`SELECT MAX(seq) AS seq FROM audit_events`)
      const lastSeq = Number(last?.seq ?? 0)
      if (lastSeq <= limit) break
      const newer = await readHead(tx)
      if (!newer || Number(newer.seq) < lastSeq) {
        return {
          ok: false,
          events: expectedSeq - 1,
          brokenAt: limit + 1,
          reason: 'events beyond the audit head (inserted outside the vault)',
        }
      }
      head = newer
      limit = Number(newer.seq)
    }
    const events = expectedSeq - 1
    const problem = headProblem(head, key, events, previous)
    if (problem) return { ok: false, events, brokenAt: problem.brokenAt, reason: problem.reason }
    return { ok: true, events, head: previous }
  })
}

/**
 * The cheap start-up check of the log's end: the head row exists, carries a valid MAC and names a
 * stored event with its hash (events appended after it, by another replica, are left to the full walk).
 * Returns the reason it fails, or null.
 */
export async function checkAuditHead(tx: SqlExecutor, key: Buffer): Promise<string | null> {
  const head = await readHead(tx)
  const seq = head ? Number(head.seq) : 0
  const [event] = seq > 0 ? await tx.all(`SELECT hash FROM audit_events WHERE seq = ?`, [seq]) : []
  const problem = headProblem(
    head,
    key,
    event || seq === 0 ? seq : -1,
    event ? String(event.hash) : genesisHash,
  )
  return problem?.reason ?? null
}

async function readHead(tx: SqlExecutor): Promise<SqlRow | undefined> {
  const [head] = await tx.all(`SELECT seq, hash, mac FROM audit_head WHERE id = 1`)
  return head
}

/** What is wrong with `head` given the walked event count and the last walked hash, or null. */
function headProblem(
  head: SqlRow | undefined,
  key: Buffer,
  events: number,
  lastHash: string,
): { brokenAt: number; reason: string } | null {
  if (!head) return { brokenAt: events + 1, reason: 'the audit head is missing (the log was wiped)' }
  const brokenAt = Math.max(0, Math.min(events, Number(head.seq)))
  if (!headMacMatches(key, Number(head.seq), String(head.hash), head.mac)) {
    return { brokenAt, reason: 'the audit head fails its MAC (the tail was truncated or the head rewritten)' }
  }
  if (Number(head.seq) !== events || head.hash !== lastHash) {
    return { brokenAt, reason: 'events after the last one were deleted' }
  }
  return null
}

function headMacMatches(auditKey: Buffer, seq: number, hash: string, mac: unknown): boolean {
  const expected = Buffer.from(auditHeadMac(auditKey, seq, hash), 'hex')
  const stored = typeof mac === 'string' ? Buffer.from(mac, 'hex') : Buffer.alloc(0)
  return stored.length === expected.length && timingSafeEqual(stored, expected)
}
