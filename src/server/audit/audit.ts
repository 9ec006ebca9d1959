/**
 * The append-only audit log: one event per read, list, write, delete, login, failed login and denial,
 * never a value. Each event's hash is an HMAC (server-held key) over the previous hash and the event,
 * so an edited, inserted or deleted row breaks `verifyAuditChain`. The head row (event count and last
 * hash) carries its own MAC and exists from the moment the vault is initialised, so a truncated tail
 * (with the head rewritten to the last remaining event) and a wiped log both show.
 */
import { deriveKey } from '../../crypto/envelope.js'
import { IntegrityError } from '../../errors.js'
import { escapeControls, escapeNullable } from './audit-text.js'
import { hmacSha256 } from '../keys/hmac.js'
import type { SqlDriver, SqlExecutor, SqlRow } from '../store/index.js'

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

/** Starts the chain of a new vault: the head of an empty log (done with the root key's creation). */
export async function startAuditChain(tx: SqlExecutor, auditKey: Buffer): Promise<void> {
  await tx.run(
    `INSERT INTO audit_head (id, seq, hash, mac) VALUES (1, 0, ?, ?) ON CONFLICT (id) DO NOTHING`,
    [genesis, auditHeadMac(auditKey, 0, genesis)],
  )
}
/** The columns of an `audit_events` row, in order. */
export const auditColumns =
  'seq, at, project_id, environment, actor, action, target, result, request_id, ip, detail, prev_hash, hash'

/** Where an event stands in the chain: the previous event's hash, its own sequence number and time. */
export interface ChainLink {
  previous: string
  seq: number
  at: string
}

/** The hash of one event, chained to the previous hash. */
export function eventHash(
  key: Buffer,
  { previous, seq, at }: ChainLink,
  event: Required<AuditEvent>,
): string {
  const body = JSON.stringify(eventFields(seq, at, event))
  return hmacSha256(key).update(previous).update('\n').update(body).digest('hex')
}

/** An event's fields in the order its hash covers them and the audit table stores them. */
export function eventFields(
  seq: number,
  at: string,
  event: Required<AuditEvent>,
): (string | number | null)[] {
  return [
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
  ]
}

/** The stored form of an event: absent fields null, request-borne text with its controls escaped. */
export function complete(event: AuditEvent): Required<AuditEvent> {
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
export function eventOfRow(row: SqlRow): Required<AuditEvent> {
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

/**
 * Appends one event inside the caller's transaction (so it commits or rolls back with the change);
 * on an engine that group-commits the chain, the event joins the commit's one chain update.
 */
export async function appendAudit(tx: SqlExecutor, key: Buffer, event: AuditEvent): Promise<void> {
  if (tx.deferAudit) {
    tx.deferAudit(key, complete(event))
    return
  }
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
  const hash = eventHash(key, { previous, seq, at }, full)
  await tx.run(`INSERT INTO audit_events (${auditColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
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
}

/** The sequence number of the newest committed event (0 for an empty log). */
export async function auditHeadSeq(tx: SqlExecutor): Promise<number> {
  const [head] = await tx.all<{ seq: number }>(`SELECT seq FROM audit_head WHERE id = 1`)
  return Number(head?.seq ?? 0)
}

/** Appends one event in its own transaction (denials and failed logins, which change nothing else). */
export function recordAudit(driver: SqlDriver, key: Buffer, event: AuditEvent): Promise<void> {
  return driver.transaction((tx) => appendAudit(tx, key, event))
}

/**
 * Events of a project (or all, when projectId is null), oldest first, after `afterSeq`. With
 * `environments`, only the events of those environments, and the project's events of no environment
 * (logins, identities, webhooks) only when `projectWide`.
 */
export async function listAudit(
  tx: SqlExecutor,
  options: {
    projectId: string | null
    afterSeq?: number
    limit?: number
    environments?: { slugs: string[]; projectWide: boolean }
    /** The newest events first (the last `limit` of them). */
    newest?: boolean
  },
): Promise<AuditRecord[]> {
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000)
  const scope = options.environments
  const inScope = scope?.slugs.length ? `environment IN (${scope.slugs.map(() => '?').join(', ')})` : '1 = 0'
  const within = scope ? ` AND (${inScope}${scope.projectWide ? ' OR environment IS NULL' : ''})` : ''
  const order = options.newest ? ' DESC' : ''
  const rows = await tx.all(
    options.projectId === null
      ? `SELECT ${auditColumns} FROM audit_events WHERE seq > ? ORDER BY seq${order} LIMIT ?`
      : `SELECT ${auditColumns} FROM audit_events WHERE project_id = ? AND seq > ?${within} ORDER BY seq${order} LIMIT ?`,
    options.projectId === null
      ? [options.afterSeq ?? 0, limit]
      : [options.projectId, options.afterSeq ?? 0, ...(scope?.slugs ?? []), limit],
  )
  return rows.map((row) => ({
    seq: Number(row.seq),
    at: String(row.at),
    ...eventOfRow(row),
    hash: String(row.hash),
  }))
}
