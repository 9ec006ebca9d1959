/**
 * Secret operations inside one transaction each: list, get, create, update (PUT/PATCH), delete,
 * versions, read a version, roll back. Every change appends a version (linear, gap-free under a row
 * lock), every operation appends its audit event in the same transaction, no value leaves unsealed
 * except in the response of a read.
 */
import type { VaultContext } from './context.js'
import { ApiError } from './http.js'
import {
  appendVersion,
  audit,
  checkIfMatch,
  lockSecret,
  metadata,
  notFound,
  readValue,
  requireSecretRow,
} from './secret-rows.js'
import type { SqlExecutor } from './store/index.js'
import { queueWebhookEvents } from './webhooks.js'

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

/** Every live secret of the environment, with values unless `withValues` is false. */
export async function listSecrets(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  withValues: boolean,
) {
  const rows = await tx.values(
    `SELECT s.name, s.version, s.created_at, s.updated_at, v.ciphertext, v.key_version
     FROM secrets s JOIN secret_versions v ON v.secret_id = s.id AND v.version = s.version
     WHERE s.project_id = ? AND s.environment = ? AND s.deleted = 0 ORDER BY s.name`,
    [scope.projectId, scope.environment],
  )
  const secrets: (SecretMetadata & { value?: string })[] = []
  for (const row of rows) {
    const name = String(row[0])
    const version = Number(row[1])
    const createdAt = String(row[2])
    const updatedAt = String(row[3])
    if (!withValues) {
      secrets.push({ name, version, createdAt, updatedAt })
      continue
    }
    const at = { projectId: scope.projectId, environment: scope.environment, name, version }
    const ciphertext = String(row[4])
    const keyVersion = Number(row[5])
    const value =
      context.keyring.openedBefore(at, ciphertext, keyVersion) ??
      (await context.keyring.openValue(tx, at, ciphertext, keyVersion))
    secrets.push({ name, value, version, createdAt, updatedAt })
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
  const row = await requireSecretRow(tx, scope, name)
  if (Number(row.deleted)) throw notFound(name, scope.environment)
  const value = await readValue(context, tx, scope, row.id, name, Number(row.version))
  await audit(context, tx, scope, 'secret.read', name)
  const { version, createdAt, updatedAt } = metadata(row)
  return { name, value, version, createdAt, updatedAt }
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
  await queueWebhookEvents(
    context,
    tx,
    scope,
    created ? 'secret.created' : 'secret.updated',
    name,
    row.version,
  )
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
  await queueWebhookEvents(context, tx, scope, 'secret.deleted', name, row.version)
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
  await queueWebhookEvents(context, tx, scope, 'secret.updated', name, row.version)
  return row
}
