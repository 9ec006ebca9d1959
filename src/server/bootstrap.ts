/**
 * The setup wizard's work (`vault server init`): the admin account (argon2id), a project with its
 * environments, and the `<project>-deployment` machine identity with read and write on every
 * environment; optionally the stack's credentials file (`.vault/credentials`, mode 600, which compose
 * never reads, listed in .gitignore). One-time, under a lock.
 */
import { ConflictError, UsageError } from '../errors.js'
import { appendAudit } from './audit/audit.js'
import { checkUsername, createAccount, findAccountByName } from './humans/accounts.js'
import { hashPassword, passwordMatches } from './humans/password-hash.js'
import { createIdentity, createProject, type PermissionMap } from './identities.js'
import type { Keyring } from './keys/keyring.js'
import { writeCredentialsFile } from '../client/credentials-file.js'
import type { SqlDriver, SqlExecutor } from './store/index.js'

export interface InitOptions {
  adminUser: string
  adminPassword: string
  project: string
  environments: string[]
  siteUrl?: string
  writeEnvDir?: string
}

export interface InitResult {
  projectId: string
  projectName: string
  environments: string[]
  identityName: string
  clientId: string
  clientSecret: string
  adminUser: string
  /** The stack's credentials file, when `writeEnvDir` was given. */
  credentialsFile?: string
}

/** A project made for one stack: its environments and its deployment identity's credentials. */
export interface StackProjectOptions {
  project: string
  environments: string[]
  /** The audit actor (`admin:NAME` for init, `admin:cli` for `vault project create`). */
  actor: string
  /** The audit action (`project.init`, `project.create`). */
  action: string
}

/** What `createStackProject` made. */
export type StackProject = Omit<InitResult, 'adminUser' | 'credentialsFile'>

/**
 * Creates the project with its environments and the `<project>-deployment` identity with read and
 * write on each, inside `tx`; a project of that name is a ConflictError (exit 6).
 */
export async function createStackProject(
  tx: SqlExecutor,
  keyring: Keyring,
  options: StackProjectOptions,
): Promise<StackProject> {
  const environments = [...new Set(options.environments)]
  if (environments.length === 0)
    throw new UsageError('a project needs at least one environment', { hint: '--environments dev,prod' })
  const [project] = await tx.all(`SELECT id FROM projects WHERE name = ?`, [options.project])
  if (project)
    throw new ConflictError(`project '${options.project}' already exists`, {
      hint: 'choose another project name',
    })
  const created = await createProject(tx, options.project, environments)
  const permissions: PermissionMap = Object.fromEntries(environments.map((slug) => [slug, ['read', 'write']]))
  const identityName = `${options.project}-deployment`
  const credentials = await createIdentity(tx, keyring, {
    projectId: created.id,
    name: identityName,
    permissions,
  })
  await appendAudit(tx, keyring.auditKey, {
    projectId: created.id,
    actor: options.actor,
    action: options.action,
    target: options.project,
    result: 'ok',
    detail: `environments ${environments.join(',')}; identity ${identityName}`,
  })
  return {
    projectId: created.id,
    projectName: created.name,
    environments,
    identityName,
    clientId: credentials.identity.clientId,
    clientSecret: credentials.clientSecret,
  }
}

/** Refuses `--write-env` without the site URL the credentials file needs, before anything is written. */
export function checkWriteEnv(options: { writeEnvDir?: string; siteUrl?: string }): void {
  if (options.writeEnvDir && !options.siteUrl)
    throw new UsageError('--write-env needs --site-url (the VAULT_DOMAIN the stack will use)')
}

/** Writes the stack's `.vault/credentials` for `project` when `writeEnvDir` is given; returns its path. */
export function writeStackCredentials(
  project: StackProject,
  options: { writeEnvDir?: string; siteUrl?: string },
): string | undefined {
  if (!options.writeEnvDir || !options.siteUrl) return undefined
  return writeCredentialsFile(options.writeEnvDir, {
    VAULT_DOMAIN: options.siteUrl,
    VAULT_PROJECT_ID: project.projectId,
    VAULT_CLIENT_ID: project.clientId,
    VAULT_CLIENT_SECRET: project.clientSecret,
  })
}

/**
 * Creates the admin (when absent), the project and its deployment identity. An existing admin of that
 * name must be given its own password: a different one is refused (ConflictError, exit 6), never kept
 * silently, and a second stack's project is `vault project create`'s job.
 */
export async function initialiseVault(
  driver: SqlDriver,
  keyring: Keyring,
  options: InitOptions,
): Promise<InitResult> {
  if (options.adminPassword.length < 12) {
    throw new UsageError('the admin password is too short (at least 12 characters)', {
      hint: 'generate one with vault pwgen',
    })
  }
  checkUsername(options.adminUser)
  checkWriteEnv(options)
  const passwordHash = await hashPassword(options.adminPassword)
  const project = await driver.exclusive('vault:init', async (tx) => {
    const admin = await findAccountByName(tx, keyring.rowMacKey, options.adminUser)
    if (admin && !(await passwordMatches(options.adminPassword, admin.passwordHash)))
      throw new ConflictError(
        `the admin account '${options.adminUser}' already exists with a different password; server init does not change it`,
        {
          hint: `add a stack's project with vault project create NAME --site-url URL --write-env DIR`,
        },
      )
    if (!admin) {
      await createAccount(tx, keyring.rowMacKey, {
        username: options.adminUser,
        password: options.adminPassword,
        passwordHash,
        role: 'admin',
      })
    }
    return createStackProject(tx, keyring, {
      project: options.project,
      environments: options.environments,
      actor: `admin:${options.adminUser}`,
      action: 'project.init',
    })
  })
  const initResult: InitResult = { ...project, adminUser: options.adminUser }
  const credentialsFile = writeStackCredentials(project, options)
  if (credentialsFile) initResult.credentialsFile = credentialsFile
  return initResult
}
