/**
 * A process entry for the vault server configured only by environment variables (ENCRYPTION_KEY,
 * JWT_SECRET, DB_URL, SITE_URL, PUBLIC_VAULT_URL, VAULT_HOST, VAULT_PORT, VAULT_DEV, VAULT_DATA_DIR,
 * VAULT_BEHIND_PROXY, VAULT_TLS_CERT, VAULT_TLS_KEY). `vault server` is the documented way to run it;
 * tests spawn this file directly (`node --import tsx src/server/main.ts`) to get a real second process.
 */
import { resolveServerConfig } from './config.js'
import { startVault } from './server.js'

/** Starts the server from the environment and stops it on SIGTERM/SIGINT. */
export async function runFromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = resolveServerConfig({
    encryptionKey: env.ENCRYPTION_KEY,
    jwtSecret: env.JWT_SECRET,
    dbUrl: env.DB_URL,
    siteUrl: env.SITE_URL,
    publicVaultUrl: env.PUBLIC_VAULT_URL,
    host: env.VAULT_HOST,
    port: env.VAULT_PORT ? Number(env.VAULT_PORT) : undefined,
    dev: env.VAULT_DEV === '1',
    dataDir: env.VAULT_DATA_DIR,
    behindProxy: env.VAULT_BEHIND_PROXY === '1',
    tlsCert: env.VAULT_TLS_CERT,
    tlsKey: env.VAULT_TLS_KEY,
  })
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
