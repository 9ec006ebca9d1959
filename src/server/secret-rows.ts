/**
 * Row-level building blocks of the secrets operations: the secret row and its lock, If-Match checks,
 * reading a sealed version, appending a version (gap-free under the row lock) and the audit event of
 * an operation. Values are sealed before they reach a row and opened only for a read's response.
 */
import { randomUUID } from 'node:crypto'
import { appendAudit } from './audit.js'
import type { InTransaction } from './context.js'
import { ApiError } from './http.js'
import { rowMac } from './row-mac.js'
import type { SecretMetadata, SecretScope } from './secrets.js'
import type { SqlExecutor } from './store/index.js'

/** A row of `secrets`: the current version and whether it is a tombstone. */
export interface SecretRow {
  id: string
  name: string
  version: number
  deleted: number
  created_at: string
  updated_at: string
  [column: string]: string | number | null
}

/** The columns of a SecretRow, for SELECTs. */
export const secretColumns = 'id, name, version, deleted, created_at, updated_at'

/** The public metadata of a secret row. */
export function metadata(row: SecretRow): SecretMetadata {
  return {
    name: row.name,
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** The 404 of a secret that does not exist (or is deleted) in an environment. */
export function notFound(name: string, environment: string): ApiError {
  return new ApiError(404, 'not_found', `secret ${name} does not exist in environment '${environment}'`)
}

/** The conditional headers of a write: If-Match and If-None-Match (RFC 9110 section 13.1). */
export interface Preconditions {
  ifMatch?: string
  ifNoneMatch?: string
}

const entityTagList = /^\s*(?:\*|(?:W\/)?"[^"]*"(?:\s*,\s*(?:W\/)?"[^"]*")*)\s*$/

function parseTags(header: string, name: string): { any: boolean; strong: string[]; weak: boolean } {
  if (!entityTagList.test(header)) {
    throw new ApiError(400, 'bad_request', `${name} takes "*" or quoted entity tags like "3"`)
  }
  if (header.trim() === '*') return { any: true, strong: [], weak: false }
  const tags = header.split(',').map((tag) => tag.trim())
  return {
    any: false,
    strong: tags.filter((tag) => !tag.startsWith('W/')).map((tag) => tag.slice(1, -1)),
    weak: tags.some((tag) => tag.startsWith('W/')),
  }
}

/**
 * Checks If-Match (strong comparison: a weak tag never matches; `*` needs a live secret) and
 * If-None-Match (`*` or the current tag refuses the write) against the current row. A malformed or
 * unquoted tag is a 400, an unmet condition a 412.
 */
export function checkPreconditions(conditions: Preconditions, current: SecretRow | undefined): void {
  const live = current !== undefined && !Number(current.deleted)
  const version = live ? String(current.version) : undefined
  if (conditions.ifMatch !== undefined) {
    const wanted = parseTags(conditions.ifMatch, 'If-Match')
    if (wanted.any ? !live : version === undefined || !wanted.strong.includes(version)) {
      const why = wanted.weak && !wanted.strong.includes(version ?? '') ? ' (weak tags never match)' : ''
      throw new ApiError(
        412,
        'precondition_failed',
        `the secret is at version ${version ?? 'none'}, not ${conditions.ifMatch.trim()}${why}`,
      )
    }
  }
  if (conditions.ifNoneMatch !== undefined) {
    const refused = parseTags(conditions.ifNoneMatch, 'If-None-Match')
    const weakMatch = (tag: string) => tag === `W/"${version}"`
    const tags = conditions.ifNoneMatch.split(',').map((tag) => tag.trim())
    if (live && (refused.any || refused.strong.includes(version!) || tags.some(weakMatch))) {
      throw new ApiError(412, 'precondition_failed', `the secret already exists at version ${version}`)
    }
  }
}

/** What an operation's audit event says beyond its scope. */
export interface OperationEvent {
  action: string
  target: string | null
  detail?: string
}

/** Appends the audit event of a successful operation in the caller's transaction. */
export async function audit({ context, tx, scope }: InTransaction<SecretScope>, event: OperationEvent) {
  await appendAudit(tx, context.keyring.auditKey, {
    projectId: scope.projectId,
    environment: scope.environment,
    actor: scope.actor,
    action: event.action,
    target: event.target,
    result: 'ok',
    requestId: scope.requestId,
    ip: scope.ip,
    detail: event.detail,
  })
}

/** Opens the value of one version (404 for a tombstone; IntegrityError when tampered with). */
export async function readValue(
  { context, tx, scope }: InTransaction<SecretScope>,
  at: { secretId: string; name: string; version: number },
): Promise<string> {
  const { secretId, name, version } = at
  const [row] = await tx.all<{ ciphertext: string | null; key_version: number | null }>(
    `SELECT ciphertext, key_version FROM secret_versions WHERE secret_id = ? AND version = ?`,
    [secretId, version],
  )
  if (!row?.ciphertext) throw new ApiError(404, 'not_found', `version ${version} of ${name} holds no value`)
  return context.keyring.openValue(
    tx,
    { projectId: scope.projectId, environment: scope.environment, name, version },
    row.ciphertext,
    Number(row.key_version),
  )
}

/** The secret row, locked for the rest of the transaction, or undefined. */
export async function lockSecret(
  tx: SqlExecutor,
  scope: SecretScope,
  name: string,
): Promise<SecretRow | undefined> {
  const [row] = await tx.lockRows<SecretRow>(
    `SELECT ${secretColumns} FROM secrets WHERE project_id = ? AND environment = ? AND name = ?`,
    [scope.projectId, scope.environment, name],
  )
  return row
}

/** Appends version n+1 (value sealed for its exact row, or a tombstone when null) and moves the row to it. */
export async function appendVersion(
  { context, tx, scope, view }: InTransaction<SecretScope>,
  name: string,
  current: SecretRow | undefined,
  value: string | null,
): Promise<{ row: SecretMetadata; created: boolean }> {
  const now = new Date().toISOString()
  let secretId = current?.id
  let createdAt = current?.created_at ?? now
  if (!current) {
    secretId = randomUUID()
    await tx.run(
      `INSERT INTO secrets (id, project_id, environment, name, version, deleted, created_at, updated_at)
       VALUES (?, ?, ?, ?, 0, 0, ?, ?) ON CONFLICT (project_id, environment, name) DO NOTHING`,
      [secretId, scope.projectId, scope.environment, name, now, now],
    )
    const raced = await lockSecret(tx, scope, name)
    if (raced && raced.id !== secretId) {
      throw new ApiError(409, 'conflict', `secret ${name} was created concurrently; retry`)
    }
  }
  const version = Number(current?.version ?? 0) + 1
  if (current && Number(current.deleted) && value !== null) createdAt = now
  const sealed =
    value === null
      ? null
      : await context.keyring.sealValue(
          tx,
          { projectId: scope.projectId, environment: scope.environment, name, version },
          value,
          view?.generation,
        )
  const deleted = value === null ? 1 : 0
  const covered = { id: secretId!, project_id: scope.projectId, environment: scope.environment, name }
  const mac = rowMac(context.keyring.rowMacKey, 'secrets', { ...covered, version, deleted })
  // the row was found by (project_id, environment, name), so the MAC is computed here, not re-read
  const writes = [
    {
      sql: `INSERT INTO secret_versions (secret_id, version, ciphertext, key_version, actor, deleted, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      params: [
        secretId!,
        version,
        sealed?.ciphertext ?? null,
        sealed?.keyVersion ?? null,
        scope.actor,
        deleted,
        now,
      ],
    },
    {
      sql: `UPDATE secrets SET version = ?, deleted = ?, created_at = ?, updated_at = ?, row_mac = ? WHERE id = ?`,
      params: [version, deleted, createdAt, now, mac, secretId!],
    },
  ]
  if (tx.runTogether) await tx.runTogether(writes)
  else for (const { sql, params } of writes) await tx.run(sql, params)
  return {
    row: { name, version, createdAt, updatedAt: now },
    created: !current || Boolean(Number(current.deleted)),
  }
}

/** The secret row (deleted or not), or a 404. */
export async function requireSecretRow(
  tx: SqlExecutor,
  scope: SecretScope,
  name: string,
): Promise<SecretRow> {
  const [row] = await tx.all<SecretRow>(
    `SELECT ${secretColumns} FROM secrets WHERE project_id = ? AND environment = ? AND name = ?`,
    [scope.projectId, scope.environment, name],
  )
  if (!row) throw notFound(name, scope.environment)
  return row
}
