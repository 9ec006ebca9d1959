/**
 * Secret operations inside one transaction each: list, get, create, update (PUT/PATCH), delete,
 * versions, read a version, roll back. Every change appends a version (linear, gap-free under a row
 * lock), every operation appends its audit event in the same transaction, no value leaves unsealed
 * except in the response of a read. Each takes `{ context, tx, scope }` (InTransaction).
 */
import type { InTransaction } from '../context.js'
import { ApiError } from '../http/http.js'
import {
  appendOnHint,
  appendVersion,
  audit,
  type Appended,
  CreatedConcurrently,
  lockSecret,
  metadata,
  notFound,
  readContent,
  readValue,
  requireSecretRow,
  type SecretRow,
  type VersionContent,
} from './secret-rows.js'
import { checkPreconditions, type Preconditions } from '../http/preconditions.js'
import { listVersionRows, liveSecretRows, versionCreatedAt } from './version-rows.js'
import { queueWebhookEvents } from '../webhooks/webhooks.js'

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
  /** Present when the value is a template (`${OTHER}` references, resolved by the CLI). */
  template?: true
}

export type WriteMode = 'create' | 'update' | 'upsert'

/** A write: the name, the new value, how (create, update, upsert) and the request's preconditions. */
export interface SecretWrite extends Preconditions {
  name: string
  value: string
  mode: WriteMode
  /** The value is a template (`${OTHER}` references, resolved by the CLI). */
  template?: boolean
  /** The value is not a secret (TZ, a domain): shown unmasked, never due for rotation. */
  plain?: boolean
}

type InScope = InTransaction<SecretScope>

type Listed = SecretMetadata & { value?: string; template?: true; plain?: true }

/**
 * Every live secret of the environment, with values unless `withValues` is false; taken from (and
 * kept in) the view's listing cache when there is one. Each call is audited either way.
 */
export async function listSecrets(at: InScope, withValues: boolean): Promise<readonly Listed[]> {
  const { scope, view } = at
  const key = [scope.projectId, scope.environment, withValues ? 'values' : 'names']
  if (!view) return auditedListing(at, withValues, await readListing(at, withValues))
  let secrets = view.listing<readonly Listed[]>(key)
  if (!secrets) {
    secrets = Object.freeze(await readListing(at, withValues))
    const chars = secrets.reduce(
      (sum, secret) => sum + secret.name.length + (secret.value?.length ?? 0) + 80,
      0,
    )
    view.storeListing(key, secrets, chars)
  }
  return auditedListing(at, withValues, secrets)
}

async function auditedListing(at: InScope, withValues: boolean, secrets: readonly Listed[]) {
  await audit(at, {
    action: 'secret.list',
    target: null,
    detail: withValues ? `${secrets.length} secrets with values` : `${secrets.length} secrets`,
  })
  return secrets
}

async function readListing(at: InScope, withValues: boolean): Promise<Listed[]> {
  const { context, tx, scope } = at
  const rows = await liveSecretRows(tx, scope)
  const secrets: Listed[] = []
  for (const row of rows) {
    const name = String(row[0])
    const version = Number(row[1])
    const createdAt = String(row[2])
    const updatedAt = String(row[3])
    const template = {
      ...(Number(row[6]) === 1 ? { template: true as const } : {}),
      ...(Number(row[7]) === 1 ? { plain: true as const } : {}),
    }
    if (!withValues) {
      secrets.push({ name, version, createdAt, updatedAt, ...template })
      continue
    }
    const address = { projectId: scope.projectId, environment: scope.environment, name, version }
    const ciphertext = String(row[4])
    const keyVersion = Number(row[5])
    const value =
      context.keyring.openedBefore(address, ciphertext, keyVersion) ??
      (await context.keyring.openValue(tx, address, ciphertext, keyVersion))
    secrets.push({ name, value, version, createdAt, updatedAt, ...template })
  }
  return secrets
}

/** One live secret with its current value. */
export async function getSecret(at: InScope, name: string): Promise<SecretWithValue> {
  const row = await requireSecretRow(at.tx, at.scope, name)
  if (Number(row.deleted)) throw notFound(name, at.scope.environment)
  const { value, template } = await readContent(at, { secretId: row.id, name, version: Number(row.version) })
  await audit(at, { action: 'secret.read', target: name })
  const { version, createdAt, updatedAt } = metadata(row)
  return { name, value, version, createdAt, updatedAt, ...(template ? { template: true as const } : {}) }
}

/** Creates (POST, 409 when live), updates (PATCH, 404 when absent) or upserts (PUT) a secret. */
export async function writeSecret(
  at: InScope,
  write: SecretWrite,
): Promise<{ secret: SecretMetadata; created: boolean }> {
  const { name, value, mode, template = false, plain = false } = write
  const check = (current: SecretRow | undefined) => {
    const live = current && !Number(current.deleted)
    if (mode === 'create' && live)
      throw new ApiError(409, 'conflict', `secret ${name} already exists in '${at.scope.environment}'`)
    if (mode === 'update' && !live) throw notFound(name, at.scope.environment)
    checkPreconditions(write, current)
  }
  const { row, created } =
    (await appendOnHint(at, name, { value, template, plain }, (hint) => passes(check, hint))) ??
    (await lockAndAppend(at, name, { value, template, plain }, check))
  await audit(at, {
    action: created ? 'secret.create' : 'secret.update',
    target: name,
    detail: `version ${row.version}`,
  })
  await queueWebhookEvents(at, {
    type: created ? 'secret.created' : 'secret.updated',
    name,
    version: row.version,
  })
  return { secret: row, created }
}

/** Deletes a secret by appending a tombstone version. */
export async function deleteSecret(at: InScope, name: string, conditions: Preconditions = {}) {
  const check = (current: SecretRow | undefined) => {
    if (!current || Number(current.deleted)) throw notFound(name, at.scope.environment)
    checkPreconditions(conditions, current)
  }
  const { row } =
    (await appendOnHint(at, name, { value: null }, (hint) => passes(check, hint))) ??
    (await lockAndAppend(at, name, { value: null }, check))
  await audit(at, { action: 'secret.delete', target: name, detail: `version ${row.version}` })
  await queueWebhookEvents(at, { type: 'secret.deleted', name, version: row.version })
}

/**
 * Appends a version under the row lock, after `check` (which throws the write's refusal) has passed on
 * the locked row: the path of every write whose hinted row did not hold (and of SQLite's).
 */
async function lockAndAppend(
  at: InScope,
  name: string,
  content: VersionContent,
  check: (current: SecretRow | undefined) => void,
): Promise<Appended> {
  const current = await lockSecret(at.tx, at.scope, name)
  check(current)
  return appendVersion(at, name, current, content).catch(async (error: unknown) => {
    // another request created the secret after the lock found no row: this write comes after it (a
    // PUT appends the next version, a POST is a 409 on the live secret), decided on its locked row
    if (!(error instanceof CreatedConcurrently)) throw error
    const created = await lockSecret(at.tx, at.scope, name)
    check(created)
    return appendVersion(at, name, created, content)
  })
}

/** Whether `check` lets the write go ahead on `row` (a hinted row: a refusal is decided on the locked one). */
function passes(check: (current: SecretRow) => void, row: SecretRow): boolean {
  try {
    check(row)
    return true
  } catch (error) {
    if (error instanceof ApiError) return false
    throw error
  }
}

/** The version history of a secret (no values). */
export async function listVersions(at: InScope, name: string) {
  const secret = await requireSecretRow(at.tx, at.scope, name)
  const versions = await listVersionRows(at.tx, secret.id)
  await audit(at, { action: 'secret.versions', target: name })
  return versions
}

/** The value of version `version`. */
export async function readVersion(at: InScope, name: string, version: number) {
  const secret = await requireSecretRow(at.tx, at.scope, name)
  const createdAt = await versionCreatedAt(at.tx, secret.id, version)
  if (createdAt === undefined)
    throw new ApiError(404, 'not_found', `secret ${name} has no version ${version}`)
  const { value, template } = await readContent(at, { secretId: secret.id, name, version })
  await audit(at, { action: 'secret.read', target: name, detail: `version ${version}` })
  return { name, value, version, createdAt, ...(template ? { template: true as const } : {}) }
}

/** Writes a new version holding the value of `rollback.version`. */
export async function rollbackSecret(
  at: InScope,
  rollback: Preconditions & { name: string; version: number },
) {
  const { name, version } = rollback
  const current = await lockSecret(at.tx, at.scope, name)
  if (!current) throw notFound(name, at.scope.environment)
  checkPreconditions(rollback, current)
  const value = await readValue(at, { secretId: current.id, name, version })
  const [source] = await at.tx.all<{ template: number; plain: number }>(
    `SELECT template, plain FROM secret_versions WHERE secret_id = ? AND version = ?`,
    [current.id, version],
  )
  const { row } = await appendVersion(at, name, current, {
    value,
    template: Number(source?.template) === 1,
    plain: Number(source?.plain) === 1,
  })
  await audit(at, {
    action: 'secret.rollback',
    target: name,
    detail: `to version ${version} as version ${row.version}`,
  })
  await queueWebhookEvents(at, { type: 'secret.updated', name, version: row.version })
  return row
}
