/**
 * A temporary HOME and XDG directories for one test, so nothing reads or writes the real user's files.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TempHome {
  dir: string
  /** Environment variables pointing HOME and the XDG directories into `dir`. */
  env: Record<string, string>
  cleanup(): void
}

/** Creates a fresh home directory with its own XDG state, config, cache and data folders. */
export function createTempHome(): TempHome {
  const dir = mkdtempSync(join(tmpdir(), 'vault-home-'))
  const env = {
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, '.config'),
    XDG_STATE_HOME: join(dir, '.local', 'state'),
    XDG_CACHE_HOME: join(dir, '.cache'),
    XDG_DATA_HOME: join(dir, '.local', 'share'),
    VAULT_KEYCHAIN: 'off',
  }
  return { dir, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
