/**
 * The append-only audit log: one event per read, list, write, delete, login, failed login and denial,
 * never a value. Each event's hash is an HMAC (server-held key) over the previous hash and the event,
 * so an edited, inserted or deleted row breaks `verifyAuditChain`. The head row (event count and last
 * hash) carries its own MAC and exists from the moment the vault is initialised, so a truncated tail
 * (with the head rewritten to the last remaining event) and a wiped log both show.
 */
import { timingSafeEqual } from 'node:crypto'
import { deriveKey } from '../crypto/envelope.js'
import { IntegrityError } from '../errors.js'
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

/** The `prev_hash` of the first event, and the hash of an empty log's head. */
export const genesisHash = '0'.repeat(64)
const genesis = genesisHash
const headKeys = new WeakMap<Buffer, Buffer>()

/** The MAC of the head row: the event count together with the last event's hash. */
export function auditHeadMac(auditKey: Buffer, seq: number, hash: string): string {
  let key = headKeys.get(auditKey)
  if (!key) headKeys.set(auditKey, (key = deriveKey(auditKey, 'audit-head')))
  return hmacSha256(key).update(`vault-audit-head-v1\0${seq}\0${hash}`).digest('hex')
}

function headMacMatches(auditKey: Buffer, seq: number, hash: string, mac: unknown): boolean {
  const expected = Buffer.from(auditHeadMac(auditKey, seq, hash), 'hex')
  const stored = typeof mac === 'string' ? Buffer.from(mac, 'hex') : Buffer.alloc(0)
  return stored.length === expected.length && timingSafeEqual(stored, expected)
}

/** Starts the chain of a new vault: the head of an empty log (done with the root key's creation). */
export async function startAuditChain(tx: SqlExecutor, auditKey: Buffer): Promise<void> {
  await tx.run(
    `INSERT INTO audit_head (id, seq, hash, mac) VALUES (1, 0, ?, ?) ON CONFLICT (id) DO NOTHING`,
    [genesis, auditHeadMac(auditKey, 0, genesis)],
  )
}
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
  if (!head) {
    throw new IntegrityError(
      'the audit log has no head row (it was wiped outside the vault); nothing was written',
      {
        hint: 'run vault audit verify, then restore the database from a backup',
      },
    )
  }
  const previous = head.hash
  const seq = Number(head.seq) + 1
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
  await tx.run(`UPDATE audit_head SET seq = ?, hash = ?, mac = ? WHERE id = 1`, [
    seq,
    hash,
    auditHeadMac(key, seq, hash),
  ])
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
  /** The hash of the last event (the genesis hash for an empty log) when the chain verifies. */
  head?: string
}

/** Walks the whole chain and checks every link, every hash and the head. */
export async function verifyAuditChain(driver: SqlDriver, key: Buffer): Promise<AuditVerification> {
  return driver.transaction(async (tx) => {
    let previous = genesis
    let expectedSeq = 1
    const pageSize = 500
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
    const events = expectedSeq - 1
    const problem = await headProblem(tx, key, events, previous)
    if (problem) return { ok: false, events, brokenAt: problem.brokenAt, reason: problem.reason }
    return { ok: true, events, head: previous }
  })
}

/**
 * The cheap start-up check of the log's end: the head row exists, carries a valid MAC and names the
 * last stored event. Returns the reason it fails, or null.
 */
export async function checkAuditHead(tx: SqlExecutor, key: Buffer): Promise<string | null> {
  const [last] = await tx.all(`SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1`)
  const problem = await headProblem(tx, key, last ? Number(last.seq) : 0, last ? String(last.hash) : genesis)
  return problem?.reason ?? null
}

async function headProblem(
  tx: SqlExecutor,
  key: Buffer,
  events: number,
  lastHash: string,
): Promise<{ brokenAt: number; reason: string } | null> {
  const [head] = await tx.all(`SELECT seq, hash, mac FROM audit_head WHERE id = 1`)
  if (!head) return { brokenAt: events + 1, reason: 'the audit head is missing (the log was wiped)' }
  if (!headMacMatches(key, Number(head.seq), String(head.hash), head.mac)) {
    return {
      brokenAt: Math.min(events, Number(head.seq)),
      reason: 'the audit head fails its MAC (the tail was truncated or the head rewritten)',
    }
  }
  if (Number(head.seq) !== events || head.hash !== lastHash) {
    return { brokenAt: Math.min(events, Number(head.seq)), reason: 'events after the last one were deleted' }
  }
  return null
}
