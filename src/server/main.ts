/**
 * A process entry for the vault server configured only by environment variables: the same settings
 * as `vault server` (see settings.ts: VAULT_ENCRYPTION_KEY, VAULT_JWT_SECRET, VAULT_DB_URL and their _FILE twins, SITE_URL, SMTP_*, VAULT_HOST,
 * VAULT_PORT, ...). `vault server` is the documented way to run it; tests spawn this file directly
 * (`node --import tsx src/server/main.ts`) to get a real second process.
 */
import { resolveServerConfig } from './config.js'
import { startVault } from './server.js'
import { configFromEnvironment } from './settings.js'

/** Starts the server from the environment and stops it on SIGTERM/SIGINT. */
export async function runFromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const warn = (line: string) => process.stderr.write(`vault server: warning: ${line}\n`)
  const config = resolveServerConfig(configFromEnvironment(env, warn))
  for (const warning of config.warnings ?? []) process.stderr.write(`vault server: warning: ${warning}\n`)
  const vault = await startVault(config)
  process.stderr.write(`vault server listening on ${vault.url}\n`)
  const stop = () => void vault.close().then(() => process.exit(0))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runFromEnvironment().catch((error: Error & { hint?: string }) => {
    process.stderr.write(`vault server: ${error.message}${error.hint ? `\n  hint: ${error.hint}` : ''}\n`)
    process.exit((error as { exitCode?: number }).exitCode ?? 1)
  })
}
