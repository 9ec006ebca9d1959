/**
 * Server-side administration used by the admin commands (`vault server init`, `vault identity ...`,
 * `vault env ...`, `vault audit ...`, `vault webhook ...`): each opens the store directly with the
 * server's DB_URL and ENCRYPTION_KEY, does one thing in one transaction (audited) and closes it.
 */
import { parseHexKey } from '../crypto/envelope.js'
import { charsets, generatePassword } from '../crypto/password.js'
import { ConflictError, NotConfiguredError } from '../errors.js'
import { appendAudit, listAudit, type AuditRecord } from './audit.js'
import {
  takeCheckpoint,
  verifyAgainstCheckpoint,
  type AuditCheckpoint,
  type CheckpointVerification,
} from './audit-checkpoint.js'
import { initialiseVault, type InitOptions, type InitResult } from './bootstrap.js'
import * as identities from './identities.js'
import { checkStoreIntegrity, type IntegrityReport } from './integrity.js'
import { rewrapRootKey, type Keyring } from './keyring.js'
import { openVault } from './server.js'
import type { SqlDriver, SqlExecutor } from './store/index.js'
import { redactUrl } from './webhook-target.js'
import { createWebhook, disableWebhook, listWebhooks } from './webhooks.js'

export interface AdminConnection {
  dbUrl?: string
  encryptionKey?: string
}

async function withVault<T>(
  connection: AdminConnection,
  work: (driver: SqlDriver, keyring: Keyring) => Promise<T>,
): Promise<T> {
  if (!connection.dbUrl)
    throw new NotConfiguredError('DB_URL is not set', {
      hint: 'pass --db-url or set DB_URL to the vault database',
    })
  const encryptionKey = parseHexKey(connection.encryptionKey, 'ENCRYPTION_KEY')
  const { driver, keyring } = await openVault({ dbUrl: connection.dbUrl, encryptionKey })
  try {
    return await work(driver, keyring)
  } finally {
    await driver.close()
  }
}

/** What an admin change is, for its audit event. */
interface AdminAction {
  project: string
  action: string
  target: string | null
}

async function inProject<T>(
  connection: AdminConnection,
  change: AdminAction,
  work: (tx: SqlExecutor, keyring: Keyring, projectId: string) => Promise<T>,
): Promise<T> {
  return withVault(connection, (driver, keyring) =>
    driver.transaction(async (tx) => {
      const { id } = await identities.requireProject(tx, change.project)
      const result = await work(tx, keyring, id)
      await appendAudit(tx, keyring.auditKey, {
        projectId: id,
        actor: 'admin:cli',
        action: change.action,
        target: change.target,
        result: 'ok',
      })
      return result
    }),
  )
}

/** `vault server init`. */
export function adminInit(connection: AdminConnection, options: InitOptions): Promise<InitResult> {
  return withVault(connection, (driver, keyring) => initialiseVault(driver, keyring, options))
}

/**
 * `vault server --dev --init-project NAME`: creates the project (dev, staging, prod), its deployment identity
 * and an admin account with a random password nobody sees; returns undefined when the project already exists.
 */
export async function initDevProject(
  connection: AdminConnection,
  options: { project: string; siteUrl: string; writeEnvDir?: string },
): Promise<InitResult | undefined> {
  try {
    return await adminInit(connection, {
      adminUser: 'admin',
      adminPassword: generatePassword(32, charsets.alnum),
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
export async function adminCreateIdentity(
  connection: AdminConnection,
  project: string,
  name: string,
  permissions: string,
) {
  return inProject(
    connection,
    { project, action: 'identity.create', target: name },
    async (tx, keyring, projectId) => {
      const environments = (await identities.listEnvironments(tx, projectId)).map(
        (environment) => environment.slug,
      )
      const created = await identities.createIdentity(tx, keyring, {
        projectId,
        name,
        permissions: identities.parsePermissions(permissions, environments),
      })
      return { ...created.identity, clientSecret: created.clientSecret }
    },
  )
}

/** `vault identity list`. */
export function adminListIdentities(connection: AdminConnection, project: string) {
  return withVault(connection, (driver) =>
    driver.transaction(async (tx) =>
      identities.listIdentities(tx, (await identities.requireProject(tx, project)).id),
    ),
  )
}

/** `vault identity revoke`. */
export function adminRevokeIdentity(connection: AdminConnection, project: string, identity: string) {
  return inProject(
    connection,
    { project, action: 'identity.revoke', target: identity },
    (tx, keyring, projectId) => identities.revokeIdentity(tx, keyring, projectId, identity),
  )
}

/** `vault identity rotate-secret`. */
export function adminRotateSecret(connection: AdminConnection, project: string, identity: string) {
  return inProject(
    connection,
    { project, action: 'identity.rotate-secret', target: identity },
    (tx, keyring, projectId) => identities.rotateIdentitySecret(tx, keyring, projectId, identity),
  )
}

/** `vault env create`. */
export function adminCreateEnvironment(
  connection: AdminConnection,
  project: string,
  slug: string,
  name?: string,
) {
  return inProject(
    connection,
    { project, action: 'environment.create', target: slug },
    (tx, _keyring, projectId) => identities.createEnvironment(tx, projectId, slug, name),
  )
}

/** `vault env list`. */
export function adminListEnvironments(connection: AdminConnection, project: string) {
  return withVault(connection, (driver) =>
    driver.transaction(async (tx) =>
      identities.listEnvironments(tx, (await identities.requireProject(tx, project)).id),
    ),
  )
}

/** `vault audit list` (all projects when `project` is undefined). */
export function adminListAudit(
  connection: AdminConnection,
  project: string | undefined,
  afterSeq: number,
  limit: number,
): Promise<AuditRecord[]> {
  return withVault(connection, (driver) =>
    driver.transaction(async (tx) => {
      const projectId = project === undefined ? null : (await identities.requireProject(tx, project)).id
      return listAudit(tx, { projectId, afterSeq, limit })
    }),
  )
}

/** `vault audit verify`: the chain, its head, the row MACs and every version's audit event. */
export function adminVerifyAudit(connection: AdminConnection): Promise<IntegrityReport> {
  return withVault(connection, (driver, keyring) => checkStoreIntegrity(driver, keyring))
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
  return inProject(
    connection,
    { project: webhook.project, action: 'webhook.create', target: redactUrl(webhook.url) },
    (tx, keyring, projectId) =>
      createWebhook(tx, keyring, { projectId, url: webhook.url, allowPrivate: webhook.allowPrivate }),
  )
}

/** `vault webhook delete`: stops deliveries to a webhook. */
export function adminDisableWebhook(connection: AdminConnection, project: string, id: string) {
  return inProject(connection, { project, action: 'webhook.delete', target: id }, (tx, keyring, projectId) =>
    disableWebhook(tx, keyring, projectId, id),
  )
}

/** `vault webhook list`. */
export function adminListWebhooks(connection: AdminConnection, project: string) {
  return withVault(connection, (driver) =>
    driver.transaction(async (tx) => listWebhooks(tx, (await identities.requireProject(tx, project)).id)),
  )
}

/** `vault server rotate-key`: re-wraps the root key under a new ENCRYPTION_KEY. */
export async function adminRotateEncryptionKey(
  connection: AdminConnection,
  nextKey: string,
): Promise<{ fingerprint: string }> {
  if (!connection.dbUrl)
    throw new NotConfiguredError('DB_URL is not set', { hint: 'pass --db-url or set DB_URL' })
  const previous = parseHexKey(connection.encryptionKey, 'ENCRYPTION_KEY')
  const next = parseHexKey(nextKey, 'NEW_ENCRYPTION_KEY')
  const { driver } = await openVault({ dbUrl: connection.dbUrl, encryptionKey: previous })
  try {
    return { fingerprint: await rewrapRootKey(driver, previous, next) }
  } finally {
    await driver.close()
  }
}
