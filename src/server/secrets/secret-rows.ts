/**
 * Row-level building blocks of the secrets operations: the secret row and its lock, reading a sealed
 * version, appending a version (gap-free under the row lock, or in one conditional statement on the
 * row this process last wrote) and the audit event of an operation. Values are sealed before they
 * reach a row and opened only for a read's response.
 */
import { randomUUID } from 'node:crypto'
import { appendAudit } from '../audit/audit.js'
import type { InTransaction } from '../context.js'
import { ApiError } from '../http/http.js'
import { rowMac } from '../keys/row-mac.js'
import type { SecretMetadata, SecretScope } from './secrets.js'
import type { SqlExecutor } from '../store/index.js'

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
  at: InTransaction<SecretScope>,
  version: { secretId: string; name: string; version: number },
): Promise<string> {
  return (await readContent(at, version)).value
}

/** Opens one version: its value and whether it is a template (404 for a tombstone). */
export async function readContent(
  { context, tx, scope }: InTransaction<SecretScope>,
  at: { secretId: string; name: string; version: number },
): Promise<{ value: string; template: boolean }> {
  const { secretId, name, version } = at
  const [row] = await tx.all<{ ciphertext: string | null; key_version: number | null; template: number }>(
    `SELECT ciphertext, key_version, template FROM secret_versions WHERE secret_id = ? AND version = ?`,
    [secretId, version],
  )
  if (!row?.ciphertext) throw new ApiError(404, 'not_found', `version ${version} of ${name} holds no value`)
  const value = await context.keyring.openValue(
    tx,
    { projectId: scope.projectId, environment: scope.environment, name, version },
    row.ciphertext,
    Number(row.key_version),
  )
  return { value, template: Number(row.template) === 1 }
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

/** What version n+1 of a secret writes: its sealed value, and the secret row's new columns and MAC. */
interface NextVersion {
  row: SecretRow
  ciphertext: string | null
  keyVersion: number | null
  /** 1 when the value is a template (`${OTHER}` references, resolved by the CLI). */
  template: number
  /** 1 when the value is not a secret (shown unmasked, never due for rotation). */
  plain: number
  mac: string
}

/** Seals `value` (or a tombstone when null) as the version after `current` (whose id is known). */
async function nextVersion(
  { context, tx, scope, view }: InTransaction<SecretScope>,
  current: Pick<SecretRow, 'id' | 'name' | 'version' | 'deleted' | 'created_at'>,
  value: string | null,
  { template = false, plain = false }: Omit<VersionContent, 'value'> = {},
): Promise<NextVersion> {
  const now = new Date().toISOString()
  const { id, name } = current
  const version = Number(current.version) + 1
  // a secret created (version 1, on the row appendVersion inserted) or brought back is created now, the
  // time its version records
  const created = Number(current.version) === 0 || (Number(current.deleted) && value !== null)
  const createdAt = created ? now : current.created_at
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
  const covered = { id, project_id: scope.projectId, environment: scope.environment, name }
  // the row is addressed by (project_id, environment, name), so the MAC is computed here, not re-read
  const mac = rowMac(context.keyring.rowMacKey, 'secrets', { ...covered, version, deleted })
  return {
    row: { id, name, version, deleted, created_at: createdAt, updated_at: now },
    ciphertext: sealed?.ciphertext ?? null,
    keyVersion: sealed?.keyVersion ?? null,
    template: template && value !== null ? 1 : 0,
    plain: plain && value !== null ? 1 : 0,
    mac,
  }
}

/** An appended version: the secret's metadata and whether the write created it (or brought it back). */
export interface Appended {
  row: SecretMetadata
  created: boolean
}

function appended(
  at: InTransaction<SecretScope>,
  next: SecretRow,
  previous: SecretRow | undefined,
): Appended {
  at.context.secretHints?.set(at.scope, next)
  return { row: metadata(next), created: !previous || Boolean(Number(previous.deleted)) }
}

/**
 * The secret had no row when the caller's lock looked, and another transaction has created it since
 * (its row is now locked in the caller's): the caller decides the write again on that row.
 */
export class CreatedConcurrently extends ApiError {
  override name = 'CreatedConcurrently'
  override readonly code: string = 'ERR_CREATED_CONCURRENTLY'

  constructor(name: string) {
    super(409, 'conflict', `secret ${name} was created concurrently; retry`)
  }
}

/** What a new version holds: a value (null for a tombstone), and whether it is a template of other secrets. */
export interface VersionContent {
  value: string | null
  template?: boolean
  /** The value is not a secret (TZ, a domain): shown unmasked, never due for rotation. */
  plain?: boolean
}

/** Appends version n+1 (value sealed for its exact row, or a tombstone when null) and moves the row to it. */
export async function appendVersion(
  at: InTransaction<SecretScope>,
  name: string,
  current: SecretRow | undefined,
  { value, ...flags }: VersionContent,
): Promise<Appended> {
  const { tx, scope } = at
  let row = current
  if (!row) {
    const now = new Date().toISOString()
    const id = randomUUID()
    await tx.run(
      `INSERT INTO secrets (id, project_id, environment, name, version, deleted, created_at, updated_at)
       VALUES (?, ?, ?, ?, 0, 0, ?, ?) ON CONFLICT (project_id, environment, name) DO NOTHING`,
      [id, scope.projectId, scope.environment, name, now, now],
    )
    const raced = await lockSecret(tx, scope, name)
    if (raced?.id !== id) throw new CreatedConcurrently(name)
    row = raced
  }
  const next = await nextVersion(at, row, value, flags)
  const writes = [
    {
      sql: `INSERT INTO secret_versions (secret_id, version, ciphertext, key_version, actor, deleted, created_at, template, plain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
        next.row.id,
        next.row.version,
        next.ciphertext,
        next.keyVersion,
        scope.actor,
        next.row.deleted,
        next.row.updated_at,
        next.template,
        next.plain,
      ],
    },
    {
      sql: `UPDATE secrets SET version = ?, deleted = ?, created_at = ?, updated_at = ?, row_mac = ? WHERE id = ?`,
      params: [
        next.row.version,
        next.row.deleted,
        next.row.created_at,
        next.row.updated_at,
        next.mac,
        next.row.id,
      ],
    },
  ]
  if (tx.runTogether) await tx.runTogether(writes)
  else for (const { sql, params } of writes) await tx.run(sql, params)
  return appended(at, next.row, current)
}

/**
 * Appends version n+1 on the row this process last wrote (secret-hints.ts), without a lock: one
 * statement moves the row only while it is exactly that row, and adds the version only when it did.
 * Undefined when there is no hint, when `accept` refuses the hinted row (the locked path then decides,
 * with the row as it is), or when the row had moved on (nothing was changed; the hint is dropped).
 */
export async function appendOnHint(
  at: InTransaction<SecretScope>,
  name: string,
  { value, ...flags }: VersionContent,
  accept: (row: SecretRow) => boolean,
): Promise<Appended | undefined> {
  const { context, tx, scope } = at
  const hint = context.secretHints?.get(scope, name)
  if (!hint || !tx.runIf || !accept(hint)) return undefined
  const next = await nextVersion(at, hint, value, flags)
  const forget = () => context.secretHints!.forget(scope, name)
  // a statement that fails here fails its whole batch (no SAVEPOINT): dropping the hint sends the next
  // write of the secret down the locked path, inside a SAVEPOINT, so a write that fails every time
  // (a constraint or a trigger in the database) fails alone instead of every batch it joins
  const changed = await tx
    .runIf(
      `WITH moved AS (
       UPDATE secrets SET version = ?, deleted = ?, created_at = ?, updated_at = ?, row_mac = ?
       WHERE id = ? AND project_id = ? AND environment = ? AND name = ? AND version = ? AND deleted = ?
         AND created_at = ? AND updated_at = ?
       RETURNING id, version, deleted, updated_at)
     INSERT INTO secret_versions (secret_id, version, ciphertext, key_version, actor, deleted, created_at, template, plain)
     SELECT id, version, ?, CAST(? AS INTEGER), ?, deleted, updated_at, CAST(? AS INTEGER), CAST(? AS INTEGER) FROM moved`,
      [
        next.row.version,
        next.row.deleted,
        next.row.created_at,
        next.row.updated_at,
        next.mac,
        hint.id,
        scope.projectId,
        scope.environment,
        name,
        Number(hint.version),
        Number(hint.deleted),
        hint.created_at,
        hint.updated_at,
        next.ciphertext,
        next.keyVersion,
        scope.actor,
        next.template,
        next.plain,
      ],
    )
    .catch((error: unknown) => {
      forget()
      throw error
    })
  if (changed === 0) {
    forget()
    return undefined
  }
  return appended(at, next.row, hint)
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
