/**
 * `vault restore --compose`: the seed's container procedure, automated. The archive and the key are
 * checked first (a bad archive stops nothing); then the vault service is stopped, only the database
 * service is started, a readiness check waits for it, the archive is restored and the vault service
 * is started again. Every step is printed. When the restore fails after the vault was stopped, the
 * vault is started again on its untouched previous data and the failure is reported.
 */
import { UnreachableError } from '../errors.js'
import { detectComposeClient, startServices, stopServices, type ComposeTarget } from '../process/compose.js'
import { readEncryptionKey } from './data-checks.js'
import { parseDbUrl } from './db-url.js'
import { restoreArchive, type RestoreOptions, type RestoreResult } from './restore.js'
import { verifyArchive } from './verify.js'
import { waitForPostgres } from './wait-ready.js'

export interface ComposeRestoreOptions extends RestoreOptions {
  /** The compose project directory. */
  composeDir: string
  composeFiles?: string[]
  vaultService: string
  /** The database service; ignored for SQLite (the vault's file is restored in place). */
  databaseService: string
  readyTimeoutMs?: number
  env?: Record<string, string>
}

/** Stops the vault service, starts only the database, waits for it, restores, starts the vault. */
export async function restoreWithCompose(options: ComposeRestoreOptions): Promise<RestoreResult> {
  const step = options.step ?? (() => undefined)
  const target = parseDbUrl(options.dbUrl)
  readEncryptionKey(options.encryptionKey)
  step('checking the archive and the key before stopping anything')
  await verifyArchive(options.file, options.encryptionKey, options.maxInflatedMib)
  const env = options.env ?? (process.env as Record<string, string>)
  const client = await detectComposeClient(env)
  if (!client) {
    throw new UnreachableError('no compose client found (neither docker compose nor docker-compose)', {
      hint: 'install the compose plugin or docker-compose, or restore without --compose',
    })
  }
  const compose: ComposeTarget = { client, cwd: options.composeDir, files: options.composeFiles, env }
  const label = client.version === 'v2' ? 'docker compose' : 'docker-compose'
  step(`stopping the vault service '${options.vaultService}' (${label} stop)`)
  await stopServices(compose, [options.vaultService])
  let result: RestoreResult
  try {
    if (target.engine === 'postgres') {
      step(`starting only the database service '${options.databaseService}'`)
      await startServices(compose, [options.databaseService])
      step('waiting until the database accepts queries (readiness check)')
      const waited = await waitForPostgres(target.url, options.readyTimeoutMs)
      step(`the database is ready (after ${(waited / 1000).toFixed(1)} s)`)
    }
    result = await restoreArchive({ ...options, step })
  } catch (error) {
    step(`restore failed: starting the vault service '${options.vaultService}' again on its previous data`)
    await startServices(compose, [options.vaultService]).catch(() => undefined)
    throw error
  }
  step(`starting the vault service '${options.vaultService}'`)
  await startServices(compose, [options.vaultService])
  return result
}
