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

function withoutPassword(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  try {
    const url = new URL(text)
    if (url.password === '') return text
    url.password = '***'
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
