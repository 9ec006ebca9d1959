/**
 * Server-side administration used by the admin commands (`vault server init`, `vault identity ...`,
 * `vault env ...`, `vault audit ...`, `vault webhook ...`, `vault user ...`): each opens the store
 * directly with the server's DB_URL and ENCRYPTION_KEY and runs the same operation
 * (src/server/operations/) the admin API runs for a signed-in admin, as the actor `admin:cli`.
 */
import { parseHexKey } from '../crypto/envelope.js'
import { charsets, generatePassword } from '../crypto/password.js'
import { ConflictError, NotConfiguredError } from '../errors.js'
import type { AuditRecord } from './audit/audit.js'
import {
  takeCheckpoint,
  verifyAgainstCheckpoint,
  type AuditCheckpoint,
  type CheckpointVerification,
} from './audit/audit-checkpoint.js'
import {
  checkWriteEnv,
  createStackProject,
  initialiseVault,
  writeStackCredentials,
  type InitOptions,
  type InitResult,
  type StackProject,
} from './bootstrap.js'
import { hostAdmin } from './humans/actor.js'
import type { IntegrityReport } from './keys/integrity.js'
import { rewrapRootKey, type Keyring } from './keys/keyring.js'
import { openVault } from './server.js'
import { listAuditNamedOp, verifyAuditOp } from './operations/audit.js'
import type { AdminCall } from './operations/call.js'
import {
  createIdentityOp,
  listIdentitiesOp,
  revokeIdentityOp,
  rotateIdentitySecretOp,
  updateIdentityOidcOp,
} from './operations/identities.js'
import type { OidcTrustInput } from './tokens/oidc-trust.js'
import { createEnvironmentOp, listEnvironmentsOp } from './operations/projects.js'
import { changePasswordOp, createUserOp, listUsersOp, removeUserOp } from './operations/users.js'
import { createWebhookOp, deleteWebhookOp, listWebhooksOp } from './operations/webhooks.js'
import type { SqlDriver } from './store/index.js'

export interface AdminConnection {
  dbUrl?: string
  encryptionKey?: string
}

async function withVault<T>(
  connection: AdminConnection,
  work: (driver: SqlDriver, keyring: Keyring) => Promise<T>,
): Promise<T> {
  if (!connection.dbUrl)
    throw new NotConfiguredError('VAULT_DB_URL is not set', {
      hint: 'pass --db-url or set VAULT_DB_URL (or VAULT_DB_URL_FILE) to the vault database',
    })
  const encryptionKey = parseHexKey(connection.encryptionKey, 'ENCRYPTION_KEY')
  const { driver, keyring } = await openVault({ dbUrl: connection.dbUrl, encryptionKey })
  try {
    return await work(driver, keyring)
  } finally {
    await driver.close()
  }
}

/** Runs an operation of src/server/operations/ as the host's admin CLI. */
function asHostAdmin<T>(connection: AdminConnection, work: (call: AdminCall) => Promise<T>): Promise<T> {
  return withVault(connection, (driver, keyring) => work({ vault: { driver, keyring }, actor: hostAdmin }))
}

/** `vault server init`. */
export function adminInit(connection: AdminConnection, options: InitOptions): Promise<InitResult> {
  return withVault(connection, (driver, keyring) => initialiseVault(driver, keyring, options))
}

/** What `vault project create` made; `credentialsFile` when it wrote the stack's credentials. */
export type ProjectCreateResult = StackProject & { credentialsFile?: string }

/**
 * `vault project create`: a stack's project with its environments and deployment identity (as `server
 * init` makes them, under the same lock), and the stack's `.vault/credentials` when `writeEnvDir` is given.
 */
export async function adminCreateProject(
  connection: AdminConnection,
  options: { project: string; environments: string[]; siteUrl?: string; writeEnvDir?: string },
): Promise<ProjectCreateResult> {
  checkWriteEnv(options)
  const project = await withVault(connection, (driver, keyring) =>
    driver.exclusive('vault:init', (tx) =>
      createStackProject(tx, keyring, {
        project: options.project,
        environments: options.environments,
        actor: hostAdmin.label,
        action: 'project.create',
      }),
    ),
  )
  const credentialsFile = writeStackCredentials(project, options)
  return credentialsFile ? { ...project, credentialsFile } : project
}

/**
 * `vault server --dev --init-project NAME`: creates the project (dev, staging, prod), its deployment identity
 * and an admin account (with the given password, else a random one nobody sees); returns undefined when the project already exists.
 */
export async function initDevProject(
  connection: AdminConnection,
  options: { project: string; siteUrl: string; writeEnvDir?: string; adminPassword?: string },
): Promise<InitResult | undefined> {
  try {
    return await adminInit(connection, {
      adminUser: 'admin',
      adminPassword: options.adminPassword ?? generatePassword(32, charsets.alnum),
      project: options.project,
      environments: ['dev', 'staging', 'prod'],
      siteUrl: options.siteUrl,
      writeEnvDir: options.writeEnvDir,
    })
  } catch (error) {
    if (error instanceof ConflictError) return undefined
    throw error
  }
}

/** `vault identity create`. */
export function adminCreateIdentity(
  connection: AdminConnection,
  project: string,
  name: string,
  permissions: string,
) {
  return adminCreateTrustedIdentity(connection, { project, name, permissions })
}

/** `vault identity create` with the OIDC trust of its CI jobs (`--oidc-*`). */
export function adminCreateTrustedIdentity(
  connection: AdminConnection,
  input: { project: string; name: string; permissions: string; oidc?: OidcTrustInput },
) {
  return asHostAdmin(connection, (call) => createIdentityOp(call, input))
}

/** `vault identity update`: the OIDC trust (null removes it). */
export function adminUpdateIdentityOidc(
  connection: AdminConnection,
  project: string,
  identity: string,
  oidc: OidcTrustInput | null,
) {
  return asHostAdmin(connection, (call) => updateIdentityOidcOp(call, { project, identity, oidc }))
}

/** `vault identity list`. */
export function adminListIdentities(connection: AdminConnection, project: string) {
  return asHostAdmin(connection, (call) => listIdentitiesOp(call, { project }))
}

/** `vault identity revoke`. */
export function adminRevokeIdentity(connection: AdminConnection, project: string, identity: string) {
  return asHostAdmin(connection, (call) => revokeIdentityOp(call, { project, identity }))
}

/** `vault identity rotate-secret`. */
export function adminRotateSecret(connection: AdminConnection, project: string, identity: string) {
  return asHostAdmin(connection, (call) => rotateIdentitySecretOp(call, { project, identity }))
}

/** `vault env create`. */
export function adminCreateEnvironment(
  connection: AdminConnection,
  project: string,
  slug: string,
  name?: string,
) {
  return asHostAdmin(connection, (call) => createEnvironmentOp(call, { project, slug, name }))
}

/** `vault env list`. */
export function adminListEnvironments(connection: AdminConnection, project: string) {
  return asHostAdmin(connection, (call) => listEnvironmentsOp(call, { project }))
}

/** `vault audit list` (all projects when `project` is undefined). */
export function adminListAudit(
  connection: AdminConnection,
  query: { project?: string; afterSeq: number; limit: number; newest?: boolean },
): Promise<(AuditRecord & { actorName?: string })[]> {
  return asHostAdmin(connection, (call) => listAuditNamedOp(call, query))
}

/** `vault audit verify`: the chain, its head, the row MACs and every version's audit event. */
export function adminVerifyAudit(connection: AdminConnection): Promise<IntegrityReport> {
  return asHostAdmin(connection, (call) => verifyAuditOp(call))
}

/** `vault audit verify --against`: the log against a checkpoint kept elsewhere. */
export function adminVerifyAuditAgainst(
  connection: AdminConnection,
  checkpoint: string,
): Promise<CheckpointVerification> {
  return withVault(connection, (driver, keyring) =>
    verifyAgainstCheckpoint(driver, keyring.auditKey, checkpoint),
  )
}

/** `vault audit checkpoint`: a signed head of the verified log. */
export function adminAuditCheckpoint(connection: AdminConnection): Promise<AuditCheckpoint> {
  return withVault(connection, (driver, keyring) => takeCheckpoint(driver, keyring.auditKey))
}

/** `vault webhook create`: checks the receiver (SSRF guard) and stores it; the audit names it without userinfo. */
export function adminCreateWebhook(
  connection: AdminConnection,
  webhook: { project: string; url: string; allowPrivate?: boolean },
) {
  return asHostAdmin(connection, (call) => createWebhookOp(call, webhook))
}

/** `vault webhook delete`: stops deliveries to a webhook. */
export function adminDisableWebhook(connection: AdminConnection, project: string, id: string) {
  return asHostAdmin(connection, (call) => deleteWebhookOp(call, { project, id }))
}

/** `vault webhook list`. */
export function adminListWebhooks(connection: AdminConnection, project: string) {
  return asHostAdmin(connection, (call) => listWebhooksOp(call, { project }))
}

/** `vault user create`: a human account (role admin or member). */
export function adminCreateUser(
  connection: AdminConnection,
  user: { username: string; password: string; role: string },
) {
  return asHostAdmin(connection, (call) => createUserOp(call, user))
}

/** `vault user list`. */
export function adminListUsers(connection: AdminConnection) {
  return asHostAdmin(connection, (call) => listUsersOp(call))
}

/** `vault user remove`: the account and its sessions. */
export function adminRemoveUser(connection: AdminConnection, username: string) {
  return asHostAdmin(connection, (call) => removeUserOp(call, { username }))
}

/** `vault user passwd`: a new password; the account's sessions end. */
export function adminChangePassword(
  connection: AdminConnection,
  user: { username: string; password: string },
) {
  return asHostAdmin(connection, (call) => changePasswordOp(call, user))
}

/** `vault server rotate-key`: re-wraps the root key under a new ENCRYPTION_KEY. */
export async function adminRotateEncryptionKey(
  connection: AdminConnection,
  nextKey: string,
): Promise<{ fingerprint: string }> {
  if (!connection.dbUrl)
    throw new NotConfiguredError('VAULT_DB_URL is not set', { hint: 'pass --db-url or set VAULT_DB_URL' })
  const previous = parseHexKey(connection.encryptionKey, 'ENCRYPTION_KEY')
  const next = parseHexKey(nextKey, 'NEW_ENCRYPTION_KEY')
  const { driver } = await openVault({ dbUrl: connection.dbUrl, encryptionKey: previous })
  try {
    return { fingerprint: await rewrapRootKey(driver, previous, next) }
  } finally {
    await driver.close()
  }
}
