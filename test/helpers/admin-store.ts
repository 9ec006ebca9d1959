/**
 * A vault database for the admin commands' in-process tests: a SQLite file in a temporary directory,
 * initialised by `vault server init` (project `homelab`: dev, prod, staging) run in process.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ServerInit from '../../src/commands/server/init.js'
import { runCommand } from './run-command.js'

export interface AdminStore {
  dir: string
  /** DB_URL and ENCRYPTION_KEY, as the admin commands read them. */
  env: { DB_URL: string; ENCRYPTION_KEY: string }
  cleanup(): void
}

/** A fresh, uninitialised store. */
export function emptyAdminStore(): AdminStore {
  const dir = mkdtempSync(join(tmpdir(), 'vault-admin-'))
  return {
    dir,
    env: { DB_URL: `sqlite://${join(dir, 'vault.db')}`, ENCRYPTION_KEY: randomBytes(32).toString('hex') },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** A store with the `homelab` project, its deployment identity and the admin `admin`. */
export async function initialisedAdminStore(): Promise<AdminStore> {
  const store = emptyAdminStore()
  const init = await runCommand(
    ServerInit,
    [
      '--admin-user',
      'admin',
      '--admin-password-stdin',
      '--project',
      'homelab',
      '--environments',
      'dev,prod,staging',
    ],
    { env: store.env, input: 'a long admin password\n' },
  )
  if (init.exitCode !== 0) throw new Error(`server init failed: ${init.stderr}`)
  return store
}
