/**
 * A printable summary of a resolved server configuration (`vault server --print-config`): every
 * setting's effective value, with keys shown only as fingerprints and URL passwords hidden.
 */
import { createHash } from 'node:crypto'
import type { ServerConfig } from './config.js'
import { defaultConnectionLimits } from './http/connection-limits.js'

function fingerprint(key: Buffer): string {
  return `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`
}

/**
 * `text` with the password of a URL hidden: in its userinfo, and in a query parameter (`?password=`),
 * which the PostgreSQL driver reads too.
 */
function withoutPassword(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  try {
    const url = new URL(text)
    const parameters = [...url.searchParams.keys()].filter((name) => /pass/i.test(name))
    if (url.password === '' && parameters.length === 0) return text
    if (url.password !== '') url.password = '***'
    for (const name of parameters) url.searchParams.set(name, '***')
    return url.toString()
  } catch {
    return text
  }
}

/** The effective configuration, safe to print. */
export function configSummary(config: ServerConfig) {
  return {
    dbUrl: withoutPassword(config.dbUrl),
    encryptionKey: fingerprint(config.encryptionKey),
    jwtSecret: fingerprint(config.jwtSecret),
    siteUrl: config.siteUrl ?? null,
    publicVaultUrl: config.publicVaultUrl ?? null,
    smtp: config.smtp ?? null,
    host: config.host,
    port: config.port,
    dev: config.dev,
    dataDir: config.devFiles?.dataDir ?? null,
    tls: config.tls !== undefined,
    behindProxy: config.behindProxy,
    trustedProxies: config.trustedProxies ?? [],
    allowPrivateWebhooks: Boolean(config.allowPrivateWebhooks),
    requestsPerMinute: config.requestsPerMinute ?? null,
    ...(config.connections ?? defaultConnectionLimits),
    warnings: config.warnings ?? [],
  }
}
