/**
 * Secret operations inside one transaction each: list, get, create, update (PUT/PATCH), delete,
 * versions, read a version, roll back. Every change appends a version (linear, gap-free under a row
 * lock), every operation appends its audit event in the same transaction, no value leaves unsealed
 * except in the response of a read.
 */
import { randomUUID } from 'node:crypto'
import { appendAudit } from './audit.js'
import type { VaultContext } from './context.js'
import { ApiError } from './http.js'
import type { SqlExecutor } from './store/index.js'

export interface SecretScope {
  projectId: string
  environment: string
  actor: string
  requestId: string
  ip: string
}

export interface SecretMetadata {
  name: string
  version: number
  createdAt: string
  updatedAt: string
}

export interface SecretWithValue extends SecretMetadata {
  value: string
}

export type WriteMode = 'create' | 'update' | 'upsert'

interface SecretRow {
  id: string
  name: string
  version: number
  deleted: number
  created_at: string
  updated_at: string
  [column: string]: string | number | null
}

const secretColumns = 'id, name, version, deleted, created_at, updated_at'

function metadata(row: SecretRow): SecretMetadata {
  return {
    name: row.name,
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

function notFound(name: string, environment: string): ApiError {
  return new ApiError(404, 'not_found', `secret ${name} does not exist in environment '${environment}'`)
}

/** Checks an If-Match header against the current version (undefined header: no check). */
function checkIfMatch(ifMatch: string | undefined, current: SecretRow | undefined): void {
  if (ifMatch === undefined) return
  const live = current && !Number(current.deleted)
  if (ifMatch.trim() === '*') {
    if (!live) throw new ApiError(412, 'precondition_failed', 'If-Match: * but the secret does not exist')
    return
  }
  const wanted = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
  if (!live || !wanted.includes(String(current.version))) {
    throw new ApiError(
      412,
      'precondition_failed',
      `the secret is at version ${live ? current.version : 'none'}, not ${ifMatch.trim()}`,
    )
  }
}

async function audit(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  action: string,
  target: string | null,
  detail?: string,
) {
  await appendAudit(tx, context.keyring.auditKey, {
    projectId: scope.projectId,
    environment: scope.environment,
    actor: scope.actor,
    action,
    target,
    result: 'ok',
    requestId: scope.requestId,
    ip: scope.ip,
    detail,
  })
}

async function readValue(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  secretId: string,
  name: string,
  version: number,
): Promise<string> {
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

/** Every live secret of the environment, with values unless `withValues` is false. */
export async function listSecrets(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  withValues: boolean,
) {
  const rows = await tx.all<SecretRow & { ciphertext: string | null; key_version: number | null }>(
    `SELECT s.id, s.name, s.version, s.deleted, s.created_at, s.updated_at, v.ciphertext, v.key_version
     FROM secrets s JOIN secret_versions v ON v.secret_id = s.id AND v.version = s.version
     WHERE s.project_id = ? AND s.environment = ? AND s.deleted = 0 ORDER BY s.name`,
    [scope.projectId, scope.environment],
  )
  const secrets: (SecretMetadata & { value?: string })[] = []
  for (const row of rows) {
    const { name, ...rest } = metadata(row)
    const entry: SecretMetadata & { value?: string } = { name, ...(withValues ? { value: '' } : {}), ...rest }
    if (withValues) {
      entry.value = await context.keyring.openValue(
        tx,
        {
          projectId: scope.projectId,
          environment: scope.environment,
          name: row.name,
          version: Number(row.version),
        },
        String(row.ciphertext),
        Number(row.key_version),
      )
    }
    secrets.push(entry)
  }
  await audit(
    context,
    tx,
    scope,
    'secret.list',
    null,
    withValues ? `${rows.length} secrets with values` : `${rows.length} secrets`,
  )
  return secrets
}

/** One live secret with its current value. */
export async function getSecret(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  name: string,
): Promise<SecretWithValue> {
  const [row] = await tx.all<SecretRow>(
    `SELECT ${secretColumns} FROM secrets WHERE project_id = ? AND environment = ? AND name = ?`,
    [scope.projectId, scope.environment, name],
  )
  if (!row || Number(row.deleted)) throw notFound(name, scope.environment)
  const value = await readValue(context, tx, scope, row.id, name, Number(row.version))
  await audit(context, tx, scope, 'secret.read', name)
  const { version, createdAt, updatedAt } = metadata(row)
  return { name, value, version, createdAt, updatedAt }
}

async function lockSecret(tx: SqlExecutor, scope: SecretScope, name: string): Promise<SecretRow | undefined> {
  const [row] = await tx.lockRows<SecretRow>(
    `SELECT ${secretColumns} FROM secrets WHERE project_id = ? AND environment = ? AND name = ?`,
    [scope.projectId, scope.environment, name],
  )
  return row
}

async function appendVersion(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
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
        )
  await tx.run(
    `INSERT INTO secret_versions (secret_id, version, ciphertext, key_version, actor, deleted, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [
      secretId!,
      version,
      sealed?.ciphertext ?? null,
      sealed?.keyVersion ?? null,
      scope.actor,
      value === null ? 1 : 0,
      now,
    ],
  )
  await tx.run(`UPDATE secrets SET version = ?, deleted = ?, created_at = ?, updated_at = ? WHERE id = ?`, [
    version,
    value === null ? 1 : 0,
    createdAt,
    now,
    secretId!,
  ])
  return {
    row: { name, version, createdAt, updatedAt: now },
    created: !current || Boolean(Number(current.deleted)),
  }
}

/** Creates (POST, 409 when live), updates (PATCH, 404 when absent) or upserts (PUT) a secret. */
export async function writeSecret(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  name: string,
  value: string,
  mode: WriteMode,
  ifMatch?: string,
): Promise<{ secret: SecretMetadata; created: boolean }> {
  const current = await lockSecret(tx, scope, name)
  const live = current && !Number(current.deleted)
  if (mode === 'create' && live)
    throw new ApiError(409, 'conflict', `secret ${name} already exists in '${scope.environment}'`)
  if (mode === 'update' && !live) throw notFound(name, scope.environment)
  checkIfMatch(ifMatch, current)
  const { row, created } = await appendVersion(context, tx, scope, name, current, value)
  await audit(context, tx, scope, created ? 'secret.create' : 'secret.update', name, `version ${row.version}`)
  await queueWebhooks(context, tx, scope, created ? 'secret.created' : 'secret.updated', name, row.version)
  return { secret: row, created }
}

/** Deletes a secret by appending a tombstone version. */
export async function deleteSecret(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  name: string,
  ifMatch?: string,
) {
  const current = await lockSecret(tx, scope, name)
  if (!current || Number(current.deleted)) throw notFound(name, scope.environment)
  checkIfMatch(ifMatch, current)
  const { row } = await appendVersion(context, tx, scope, name, current, null)
  await audit(context, tx, scope, 'secret.delete', name, `version ${row.version}`)
  await queueWebhooks(context, tx, scope, 'secret.deleted', name, row.version)
}

async function requireSecretRow(tx: SqlExecutor, scope: SecretScope, name: string): Promise<SecretRow> {
  const [row] = await tx.all<SecretRow>(
    `SELECT ${secretColumns} FROM secrets WHERE project_id = ? AND environment = ? AND name = ?`,
    [scope.projectId, scope.environment, name],
  )
  if (!row) throw notFound(name, scope.environment)
  return row
}

/** The version history of a secret (no values). */
export async function listVersions(context: VaultContext, tx: SqlExecutor, scope: SecretScope, name: string) {
  const secret = await requireSecretRow(tx, scope, name)
  const rows = await tx.all<{ version: number; created_at: string; actor: string; deleted: number }>(
    `SELECT version, created_at, actor, deleted FROM secret_versions WHERE secret_id = ? ORDER BY version`,
    [secret.id],
  )
  await audit(context, tx, scope, 'secret.versions', name)
  return rows.map((row) => ({
    version: Number(row.version),
    createdAt: row.created_at,
    actor: row.actor,
    deleted: Boolean(Number(row.deleted)),
  }))
}

/** The value of version `version`. */
export async function readVersion(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  name: string,
  version: number,
) {
  const secret = await requireSecretRow(tx, scope, name)
  const [row] = await tx.all<{ created_at: string }>(
    `SELECT created_at FROM secret_versions WHERE secret_id = ? AND version = ?`,
    [secret.id, version],
  )
  if (!row) throw new ApiError(404, 'not_found', `secret ${name} has no version ${version}`)
  const value = await readValue(context, tx, scope, secret.id, name, version)
  await audit(context, tx, scope, 'secret.read', name, `version ${version}`)
  return { name, value, version, createdAt: row.created_at }
}

/** Writes a new version holding the value of `version`. */
export async function rollbackSecret(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  name: string,
  version: number,
  ifMatch?: string,
) {
  const current = await lockSecret(tx, scope, name)
  if (!current) throw notFound(name, scope.environment)
  checkIfMatch(ifMatch, current)
  const value = await readValue(context, tx, scope, current.id, name, version)
  const { row } = await appendVersion(context, tx, scope, name, current, value)
  await audit(context, tx, scope, 'secret.rollback', name, `to version ${version} as version ${row.version}`)
  await queueWebhooks(context, tx, scope, 'secret.updated', name, row.version)
  return row
}

/** Queues one signed delivery per active webhook of the project (no value in the payload). */
async function queueWebhooks(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  type: string,
  name: string,
  version: number,
) {
  const hooks = await tx.all<{ id: string }>(
    `SELECT id FROM webhooks WHERE project_id = ? AND disabled_at IS NULL`,
    [scope.projectId],
  )
  if (hooks.length === 0) return
  const now = new Date().toISOString()
  for (const hook of hooks) {
    const body = JSON.stringify({
      id: randomUUID(),
      type,
      occurredAt: now,
      projectId: scope.projectId,
      environment: scope.environment,
      secret: { name, version },
      actor: scope.actor,
    })
    await tx.run(
      `INSERT INTO webhook_outbox (id, webhook_id, body, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, 0, ?, ?)`,
      [randomUUID(), hook.id, body, now, now],
    )
  }
  context.onOutbox?.()
}
