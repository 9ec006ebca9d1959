/**
 * A real vault server (in this process, SQLite, over HTTP on 127.0.0.1) for the commands' in-process
 * tests, with a temporary home and the environment a deploy host would have (VAULT_DOMAIN,
 * VAULT_PROJECT_ID, VAULT_CLIENT_ID, VAULT_CLIENT_SECRET); `dev` holds the `secrets` given.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTempHome, type TempHome } from './temp-home.js'
import { deploymentApi, startVaultServer, type TestVault, deploymentVariables } from './vault-server.js'

export interface SeededVault {
  server: TestVault
  home: TempHome
  /** The deploy host's environment for the CLI. */
  env: Record<string, string>
  /** A scratch directory, removed by stop(). */
  work: string
  stop(): Promise<void>
}

export async function startSeededVault(secrets: Record<string, string>): Promise<SeededVault> {
  const server = await startVaultServer({})
  const home = createTempHome()
  const work = mkdtempSync(join(tmpdir(), 'vault-command-test-'))
  const env = {
    ...home.env,
    ...deploymentVariables(server),
  }
  const api = deploymentApi(server, join(work, 'seed-state'))
  for (const [name, value] of Object.entries(secrets)) await api.putSecret(name, value, 'dev')
  return {
    server,
    home,
    env,
    work,
    async stop() {
      await server.stop()
      home.cleanup()
      rmSync(work, { recursive: true, force: true })
    },
  }
}

/** Values a shell or a dotenv reader could get wrong. */
export const hostileValues: Record<string, string> = {
  H_DOLLAR: 'pa$word $HOME $$ ${NOT_EXPANDED} end$',
  H_QUOTES: `it's "quoted"`,
  H_BACKSLASH: 'C:\\path\\\\double\\',
  H_NEWLINES: 'line1\nline2\n\n',
  H_UNICODE: 'héllo ☃ 日本 🎉',
  H_SPACES: '  leading and trailing  ',
  H_EVERYTHING: ` it's "$x" \\ \n ☃ `,
}
/** Values that must never show where they were not asked for. */
export const canaryValues = { CANARY_ONE: 'CANARY-7d1e-one', CANARY_TWO: 'CANARY-7d1e-two' }

/** The vault of test/integration/cli-vault.test.ts: hostile values, canaries and DATABASE_PASSWORD in dev. */
export function startCliVault(): Promise<SeededVault> {
  return startSeededVault({ ...hostileValues, ...canaryValues, DATABASE_PASSWORD: 'db-pw-1' })
}
