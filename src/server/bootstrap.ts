/**
 * The setup wizard's work (`vault server init`): the admin account (argon2id), a project with its
 * environments, and the `<project>-deployment` machine identity with read and write on every
 * environment; optionally the stack's credentials file (`.vault/credentials`, mode 600, which compose
 * never reads, listed in .gitignore). One-time, under a lock.
 */
import { ConflictError, UsageError } from '../errors.js'
import { appendAudit } from './audit/audit.js'
import { checkUsername, createAccount } from './humans/accounts.js'
import { hashPassword } from './humans/password-hash.js'
import { createIdentity, createProject, type PermissionMap } from './identities.js'
import type { Keyring } from './keys/keyring.js'
import { writeCredentialsFile } from '../client/credentials-file.js'
import type { SqlDriver } from './store/index.js'

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

/** Creates the admin (when absent), the project and its deployment identity. */
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
  const environments = [...new Set(options.environments)]
  const passwordHash = await hashPassword(options.adminPassword)
  const result = await driver.exclusive('vault:init', async (tx) => {
    const [admin] = await tx.all<{ username: string }>(`SELECT username FROM admins WHERE username = ?`, [
      options.adminUser,
    ])
    const [project] = await tx.all(`SELECT id FROM projects WHERE name = ?`, [options.project])
    if (project)
      throw new ConflictError(`project '${options.project}' already exists`, {
        hint: 'choose another --project name',
      })
    if (!admin) {
      await createAccount(tx, keyring.rowMacKey, {
        username: options.adminUser,
        password: options.adminPassword,
        passwordHash,
        role: 'admin',
      })
    }
    const created = await createProject(tx, options.project, environments)
    const permissions: PermissionMap = Object.fromEntries(
      environments.map((slug) => [slug, ['read', 'write']]),
    )
    const identityName = `${options.project}-deployment`
    const credentials = await createIdentity(tx, keyring, {
      projectId: created.id,
      name: identityName,
      permissions,
    })
    await appendAudit(tx, keyring.auditKey, {
      projectId: created.id,
      actor: `admin:${options.adminUser}`,
      action: 'project.init',
      target: options.project,
      result: 'ok',
      detail: `environments ${environments.join(',')}; identity ${identityName}`,
    })
    return { created, identityName, credentials }
  })
  const initResult: InitResult = {
    projectId: result.created.id,
    projectName: result.created.name,
    environments,
    identityName: result.identityName,
    clientId: result.credentials.identity.clientId,
    clientSecret: result.credentials.clientSecret,
    adminUser: options.adminUser,
  }
  if (options.writeEnvDir && options.siteUrl) {
    initResult.credentialsFile = writeCredentialsFile(options.writeEnvDir, {
      VAULT_DOMAIN: options.siteUrl,
      VAULT_PROJECT_ID: initResult.projectId,
      VAULT_CLIENT_ID: initResult.clientId,
      VAULT_CLIENT_SECRET: initResult.clientSecret,
    })
  } else if (options.writeEnvDir) {
    throw new UsageError('--write-env needs --site-url (the VAULT_DOMAIN the stack will use)')
  }
  return initResult
}
