/**
 * The append-only audit log: one event per read, list, write, delete, login, failed login and denial,
 * never a value. Each event's hash is an HMAC (server-held key) over the previous hash and the event,
 * so an edited, inserted or deleted row breaks `verifyAuditChain`.
 */
import { escapeControls, escapeNullable } from './audit-text.js'
import { hmacSha256 } from './hmac.js'
import type { SqlDriver, SqlExecutor, SqlRow } from './store/index.js'

export interface AuditEvent {
  projectId: string | null
  environment?: string | null
  actor: string
  action: string
  target?: string | null
  result: 'ok' | 'denied' | 'failed'
  requestId?: string | null
  ip?: string | null
  detail?: string | null
}

export interface AuditRecord extends Required<AuditEvent> {
  seq: number
  at: string
  hash: string
}

const genesis = '0'.repeat(64)
const columns =
  'seq, at, project_id, environment, actor, action, target, result, request_id, ip, detail, prev_hash, hash'

function eventHash(
  key: Buffer,
  previous: string,
  seq: number,
  at: string,
  event: Required<AuditEvent>,
): string {
  const body = JSON.stringify([
    seq,
    at,
    event.projectId,
    event.environment,
    event.actor,
    event.action,
    event.target,
    event.result,
    event.requestId,
    event.ip,
    event.detail,
  ])
  return hmacSha256(key).update(previous).update('\n').update(body).digest('hex')
}

/** The stored form of an event: absent fields null, request-borne text with its controls escaped. */
function complete(event: AuditEvent): Required<AuditEvent> {
  return {
    projectId: event.projectId,
    environment: escapeNullable(event.environment ?? null),
    actor: escapeControls(event.actor),
    action: escapeControls(event.action),
    target: escapeNullable(event.target ?? null),
    result: event.result,
    requestId: escapeNullable(event.requestId ?? null),
    ip: escapeNullable(event.ip ?? null),
    detail: escapeNullable(event.detail ?? null),
  }
}

/** The event fields of an `audit_events` row. */
function eventOfRow(row: SqlRow): Required<AuditEvent> {
  return {
    projectId: row.project_id as string | null,
    environment: row.environment as string | null,
    actor: String(row.actor),
    action: String(row.action),
    target: row.target as string | null,
    result: row.result as AuditEvent['result'],
    requestId: row.request_id as string | null,
    ip: row.ip as string | null,
    detail: row.detail as string | null,
  }
}

/** Appends one event inside the caller's transaction (so it commits or rolls back with the change). */
export async function appendAudit(tx: SqlExecutor, key: Buffer, event: AuditEvent): Promise<number> {
  const [head] = await tx.lockRows<{ seq: number; hash: string }>(
    `SELECT seq, hash FROM audit_head WHERE id = 1`,
  )
  const previous = head?.hash ?? genesis
  const seq = Number(head?.seq ?? 0) + 1
  const at = new Date().toISOString()
  const full = complete(event)
  const hash = eventHash(key, previous, seq, at, full)
  await tx.run(`INSERT INTO audit_events (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    seq,
    at,
    full.projectId,
    full.environment,
    full.actor,
    full.action,
    full.target,
    full.result,
    full.requestId,
    full.ip,
    full.detail,
    previous,
    hash,
  ])
  if (head) await tx.run(`UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1`, [seq, hash])
  else await tx.run(`INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)`, [seq, hash])
  return seq
}

/** Appends one event in its own transaction (denials and failed logins, which change nothing else). */
export function recordAudit(driver: SqlDriver, key: Buffer, event: AuditEvent): Promise<number> {
  return driver.transaction((tx) => appendAudit(tx, key, event))
}

/** Events of a project (or all, when projectId is null), oldest first, after `afterSeq`. */
export async function listAudit(
  tx: SqlExecutor,
  options: { projectId: string | null; afterSeq?: number; limit?: number },
): Promise<AuditRecord[]> {
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000)
  const rows = await tx.all(
    options.projectId === null
      ? `SELECT ${columns} FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?`
      : `SELECT ${columns} FROM audit_events WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    options.projectId === null
      ? [options.afterSeq ?? 0, limit]
      : [options.projectId, options.afterSeq ?? 0, limit],
  )
  return rows.map((row) => ({
    seq: Number(row.seq),
    at: String(row.at),
    ...eventOfRow(row),
    hash: String(row.hash),
  }))
}

export interface AuditVerification {
  ok: boolean
  events: number
  /** The first sequence number whose hash, link or position is wrong. */
  brokenAt?: number
  reason?: string
}

/** Walks the whole chain and checks every link, every hash and the head. */
export async function verifyAuditChain(driver: SqlDriver, key: Buffer): Promise<AuditVerification> {
  return driver.transaction(async (tx) => {
    let previous = genesis
    let expectedSeq = 1
    const pageSize = 1000
    for (;;) {
      const rows = await tx.all(`SELECT ${columns} FROM audit_events WHERE seq >= ? ORDER BY seq LIMIT ?`, [
        expectedSeq,
        pageSize,
      ])
      for (const row of rows) {
        const seq = Number(row.seq)
        if (seq !== expectedSeq)
          return { ok: false, events: expectedSeq - 1, brokenAt: expectedSeq, reason: 'missing event' }
        const event = eventOfRow(row)
        if (row.prev_hash !== previous)
          return { ok: false, events: seq - 1, brokenAt: seq, reason: 'broken link' }
        if (eventHash(key, previous, seq, String(row.at), event) !== row.hash) {
          return { ok: false, events: seq - 1, brokenAt: seq, reason: 'event was modified' }
        }
        previous = String(row.hash)
        expectedSeq = seq + 1
      }
      if (rows.length < pageSize) break
    }
    const [head] = await tx.all<{ seq: number; hash: string }>(
      `SELECT seq, hash FROM audit_head WHERE id = 1`,
    )
    const events = expectedSeq - 1
    if ((head ? Number(head.seq) : 0) !== events || (head ? head.hash : genesis) !== previous) {
      return { ok: false, events, brokenAt: events, reason: 'events after the last one were deleted' }
    }
    return { ok: true, events }
  })
}
