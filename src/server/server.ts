/**
 * Builds and starts a vault server from a validated configuration: opens and migrates the store,
 * checks the key fingerprint (a wrong key stops here and writes nothing) and the row MACs and audit
 * head (a database edited in SQL is refused), starts the webhook worker
 * and listens over HTTP or HTTPS, with its connection limits (http/connection-limits.ts).
 */
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { AuditVerifier } from './audit/audit-verifier.js'
import { createVaultApp } from './http/app.js'
import { compileTrustedProxies, trustNoProxy } from './http/client-address.js'
import { capSocketsPerSource, defaultConnectionLimits, timeoutOptions } from './http/connection-limits.js'
import type { ServerConfig } from './config.js'
import { defaultLimits, type VaultContext, type VaultLimits } from './context.js'
import { FailedAuthLog } from './tokens/failed-auth-log.js'
import { assertStartupIntegrity } from './keys/integrity.js'
import { loadKeyring, type Keyring } from './keys/keyring.js'
import { LoginThrottle } from './tokens/login-throttle.js'
import { openDriver, type SqlDriver } from './store/index.js'
import { SecretHints } from './secrets/secret-hints.js'
import { ReadCache } from './read-cache.js'
import { migrate } from './migrations.js'
import { appVersion } from './version.js'
import { startWebhookWorker } from './webhooks/webhooks.js'
import { resolveTimings } from './timings.js'

export interface RunningVault {
  url: string
  port: number
  context: VaultContext
  server: Server
  close(): Promise<void>
}

/** Opens the store and the keyring for a configuration (the admin commands use this too). */
export async function openVault({ dbUrl, encryptionKey }: Pick<ServerConfig, 'dbUrl' | 'encryptionKey'>) {
  const driver = openDriver(dbUrl)
  try {
    const existing = await keyringBeforeMigrating(driver, encryptionKey)
    await migrate(driver, existing)
    const keyring = existing ?? (await loadKeyring(driver, encryptionKey))
    return { driver, keyring }
  } catch (error) {
    await driver.close()
    throw error
  }
}

/** The keyring of an existing vault (a wrong key stops here), which keyed migrations use; else undefined. */
async function keyringBeforeMigrating(driver: SqlDriver, encryptionKey: Buffer) {
  const hasMeta = await driver
    .transaction((tx) => tx.all(`SELECT value FROM meta WHERE key = 'kek_fingerprint'`))
    .catch(() => undefined)
  return hasMeta && hasMeta.length > 0 ? loadKeyring(driver, encryptionKey) : undefined
}

/** The request context of a vault on an open store (startVault and socket-free tests use it). */
export function createVaultContext(
  vault: {
    driver: SqlDriver
    keyring: Keyring
    config: Pick<
      ServerConfig,
      'jwtSecret' | 'trustedProxies' | 'allowPrivateWebhooks' | 'tls' | 'requestsPerMinute'
    > &
      Partial<Pick<ServerConfig, 'behindProxy' | 'siteUrl' | 'timings'>>
  },
  limits: Partial<VaultLimits> = {},
): VaultContext {
  const merged: VaultLimits = {
    ...defaultLimits,
    ...(vault.config.requestsPerMinute ? { requestsPerMinute: vault.config.requestsPerMinute } : {}),
    ...limits,
    tokenTtlSeconds: Math.min(limits.tokenTtlSeconds ?? defaultLimits.tokenTtlSeconds, 3600),
  }
  const { config } = vault
  return {
    driver: vault.driver,
    keyring: vault.keyring,
    jwtSecret: config.jwtSecret,
    limits: merged,
    timings: resolveTimings(config.timings),
    trustProxy: compileTrustedProxies(config.trustedProxies),
    allowPrivateWebhooks: Boolean(config.allowPrivateWebhooks),
    tls: config.tls !== undefined,
    httpsForBrowsers:
      config.tls !== undefined || (Boolean(config.behindProxy) && !config.siteUrl?.startsWith('http:')),
    loginThrottle: new LoginThrottle({
      threshold: merged.lockoutThreshold,
      maxDelaySeconds: merged.lockoutMaxDelaySeconds,
    }),
    failedAuth: new FailedAuthLog({ driver: vault.driver, auditKey: vault.keyring.auditKey }),
    version: appVersion(),
    readCache: vault.driver.readGeneration ? new ReadCache(vault.driver.readGeneration) : undefined,
    secretHints: vault.driver.engine === 'postgres' ? new SecretHints() : undefined,
    auditVerifier: new AuditVerifier(vault.driver, vault.keyring.auditKey),
  }
}

/** Starts a vault server; resolves once it listens. */
export async function startVault(
  config: ServerConfig,
  limits: Partial<VaultLimits> = {},
): Promise<RunningVault> {
  const { driver, keyring } = await openVault(config)
  await assertStartupIntegrity(driver, keyring).catch(async (error: unknown) => {
    await driver.close()
    throw error
  })
  const context = createVaultContext({ driver, keyring, config }, limits)
  const worker = startWebhookWorker({
    driver,
    keyring,
    allowPrivate: Boolean(config.allowPrivateWebhooks),
    timings: context.timings.webhook,
  })
  context.onOutbox = () => worker.poke()
  const flusher = setInterval(
    () => void context.failedAuth.flush().catch(() => undefined),
    context.timings.failedAuthFlushMs,
  )
  flusher.unref()
  const app = createVaultApp(context)
  const connections = config.connections ?? defaultConnectionLimits
  const timeouts = timeoutOptions(connections)
  const server = config.tls
    ? createHttpsServer(
        {
          cert: config.tls.cert,
          key: config.tls.key,
          handshakeTimeout: connections.headersTimeoutMs,
          ...timeouts,
        },
        app,
      )
    : createHttpServer(timeouts, app)
  server.keepAliveTimeout = 30_000
  capSocketsPerSource(server, {
    limits: connections,
    trust: context.trustProxy,
    everyPeerMayBeProxy: config.behindProxy && context.trustProxy === trustNoProxy,
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  let closing: Promise<void> | undefined
  const hostPart = config.host.includes(':') ? `[${config.host}]` : config.host
  return {
    url: `${config.tls ? 'https' : 'http'}://${hostPart}:${port}`,
    port,
    context,
    server,
    close() {
      closing ??= (async () => {
        worker.stop()
        clearInterval(flusher)
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
        await context.failedAuth.flush(Infinity).catch(() => undefined)
        await driver.close()
      })()
      return closing
    },
  }
}
