/**
 * Server configuration from the seed's variables (ENCRYPTION_KEY, JWT_SECRET, DB_URL, SITE_URL,
 * PUBLIC_VAULT_URL, SMTP_*), each validated with an error naming the variable and never its value;
 * the transport rule (plain HTTP only on loopback, with --dev or behind a proxy); and --dev, which
 * generates keys into a 0600 file of its data directory and keeps a SQLite file there. The data
 * directory, the key file and the database are used only when they are this user's own and no one
 * else can write them (fs/private-directory.ts): another local user could otherwise hand the server
 * keys they know and a database of their making.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseHexKey } from '../crypto/envelope.js'
import { NotConfiguredError, UsageError } from '../errors.js'
import { checkPrivateFileSync, ensurePrivateDirectorySync } from '../fs/private-directory.js'
import { compileTrustedProxies } from './http/client-address.js'
import { defaultConnectionLimits, type ConnectionLimits } from './http/connection-limits.js'
import type { TimingOverrides } from './timings.js'

export interface ServerConfigInput {
  encryptionKey?: string
  jwtSecret?: string
  dbUrl?: string
  siteUrl?: string
  publicVaultUrl?: string
  smtpHost?: string
  smtpPort?: string
  smtpFrom?: string
  host?: string
  port?: number
  dev?: boolean
  dataDir?: string
  tlsCert?: string
  tlsKey?: string
  behindProxy?: boolean
  trustedProxies?: string
  allowPrivateWebhooks?: boolean
  requestsPerMinute?: number
  connectionsPerSource?: number
  connectionsPerProxy?: number
  headersTimeoutMs?: number
  requestTimeoutMs?: number
}

export interface ServerConfig {
  encryptionKey: Buffer
  jwtSecret: Buffer
  dbUrl: string
  siteUrl?: string
  publicVaultUrl?: string
  smtp?: { host: string; port: number; from?: string }
  host: string
  port: number
  dev: boolean
  behindProxy: boolean
  /** CIDR ranges (or proxy-addr names) of proxies whose X-Forwarded-For is believed. */
  trustedProxies?: string[]
  /** Deliver webhooks to loopback, private and link-local receivers. */
  allowPrivateWebhooks?: boolean
  /** Requests per minute per client address on every endpoint. */
  requestsPerMinute?: number
  /** Open sockets per source and per trusted proxy, and the header and request timeouts. */
  connections?: ConnectionLimits
  tls?: { cert: Buffer; key: Buffer }
  /** In --dev: the data directory and the 0600 file holding the generated keys. */
  devFiles?: { dataDir: string; keyFile: string; generated: boolean }
  /** Things the operator should know before serving (printed on stderr). */
  warnings?: string[]
  /** Durations other than the defaults (timings.ts); not read from the environment: tests set them. */
  timings?: TimingOverrides
}

/** Whether a host name or address is loopback. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '')
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare)
}

function checkUrl(variable: string, text: string | undefined, allowHttp: boolean): string | undefined {
  if (text === undefined || text === '') return undefined
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError(`${variable} is not a URL`, {
      hint: `set ${variable} to e.g. https://vault.example.com`,
    })
  }
  if (url.protocol === 'https:') return text
  if (url.protocol === 'http:' && (allowHttp || isLoopback(url.hostname))) return text
  throw new UsageError(`${variable} must be an https:// URL`, {
    hint: 'plain http is only accepted with --dev or for a loopback host',
  })
}

/** Generates or reuses the keys of a --dev data directory (0600 file). */
function devKeys(dataDir: string): {
  encryptionKey: string
  jwtSecret: string
  keyFile: string
  generated: boolean
} {
  ensurePrivateDirectorySync(dataDir, 'the dev data directory')
  const keyFile = join(dataDir, 'dev-keys.env')
  checkPrivateFileSync(keyFile, 'the dev keys', { secret: true })
  if (existsSync(keyFile)) {
    const values = Object.fromEntries(
      readFileSync(keyFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    )
    return {
      encryptionKey: values.ENCRYPTION_KEY ?? '',
      jwtSecret: values.JWT_SECRET ?? '',
      keyFile,
      generated: false,
    }
  }
  const encryptionKey = randomBytes(32).toString('hex')
  const jwtSecret = randomBytes(32).toString('hex')
  writeFileSync(keyFile, `ENCRYPTION_KEY=${encryptionKey}\nJWT_SECRET=${jwtSecret}\n`, {
    mode: 0o600,
    flag: 'wx',
  })
  return { encryptionKey, jwtSecret, keyFile, generated: true }
}

function trustedProxyList(text: string | undefined): string[] {
  const list = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  compileTrustedProxies(list)
  return list
}

const connectionSettings = [
  ['connectionsPerSource', 'VAULT_CONNECTIONS_PER_SOURCE / --connections-per-source', 1_000_000],
  ['connectionsPerProxy', 'VAULT_CONNECTIONS_PER_PROXY / --connections-per-proxy', 1_000_000],
  ['headersTimeoutMs', 'VAULT_HEADERS_TIMEOUT_MS / --headers-timeout-ms', 3_600_000],
  ['requestTimeoutMs', 'VAULT_REQUEST_TIMEOUT_MS / --request-timeout-ms', 3_600_000],
] as const

/**
 * The connection limits: integers from 1 to a bound (an hour for the timeouts), the headers' time
 * within the request's.
 */
function connectionLimits(input: ServerConfigInput): ConnectionLimits {
  const limits = { ...defaultConnectionLimits }
  for (const [key, names, most] of connectionSettings) {
    const value = input[key]
    if (value === undefined) continue
    if (!(Number.isInteger(value) && value > 0 && value <= most)) {
      throw new UsageError(`${names} must be an integer from 1 to ${most}`)
    }
    limits[key] = value
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new UsageError('VAULT_HEADERS_TIMEOUT_MS must not exceed VAULT_REQUEST_TIMEOUT_MS', {
      hint: 'the request timeout covers the headers too',
    })
  }
  return limits
}

/** Validates the configuration of `vault server`. */
export function resolveServerConfig(input: ServerConfigInput): ServerConfig {
  const dev = Boolean(input.dev)
  const host = input.host ?? '127.0.0.1'
  const port = input.port ?? 8200
  let { encryptionKey, jwtSecret, dbUrl } = input
  let devFiles: ServerConfig['devFiles']
  if (dev) {
    const dataDir = input.dataDir ?? mkdtempSync(join(tmpdir(), 'vault-dev-'))
    if (!encryptionKey || !jwtSecret) {
      const keys = devKeys(dataDir)
      encryptionKey ??= keys.encryptionKey
      jwtSecret ??= keys.jwtSecret
      devFiles = { dataDir, keyFile: keys.keyFile, generated: keys.generated }
    }
    if (dbUrl === undefined) {
      ensurePrivateDirectorySync(dataDir, 'the dev data directory')
      const database = join(dataDir, 'vault.db')
      for (const suffix of ['', '-wal', '-shm', '-journal'])
        checkPrivateFileSync(`${database}${suffix}`, 'the dev database')
      dbUrl = `sqlite://${database}`
    }
  }
  if (!dbUrl)
    throw new NotConfiguredError('VAULT_DB_URL is not set', {
      hint: 'set VAULT_DB_URL=sqlite:///var/lib/vault/vault.db or postgres://... (or VAULT_DB_URL_FILE), or use --dev',
    })
  const tlsGiven = Boolean(input.tlsCert) || Boolean(input.tlsKey)
  if (tlsGiven && !(input.tlsCert && input.tlsKey))
    throw new UsageError('--tls-cert and --tls-key go together')
  if (!tlsGiven && !dev && !input.behindProxy && !isLoopback(host)) {
    throw new UsageError(`refusing plain HTTP on ${host}, which is not loopback`, {
      hint: 'give --tls-cert and --tls-key, listen on 127.0.0.1, or use --behind-proxy behind a TLS-terminating gateway',
    })
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError('VAULT_PORT / --port must be an integer from 0 to 65535')
  const requestsPerMinute = input.requestsPerMinute
  if (requestsPerMinute !== undefined && !(Number.isInteger(requestsPerMinute) && requestsPerMinute > 0))
    throw new UsageError('VAULT_REQUESTS_PER_MINUTE / --requests-per-minute must be a positive integer')
  const connections = connectionLimits(input)
  const warnings: string[] = []
  if (!tlsGiven && dev && !input.behindProxy && !isLoopback(host)) {
    warnings.push(
      `--dev serves plain HTTP on ${host}: anyone on that network can read tokens and secret values; listen on 127.0.0.1 or give --tls-cert and --tls-key`,
    )
  }
  const trustedProxies = trustedProxyList(input.trustedProxies)
  if (input.behindProxy && trustedProxies.length === 0) {
    warnings.push(
      'X-Forwarded-For is ignored without --trusted-proxies: rate limits and the audit log see the proxy address',
    )
  }
  const relaxed = dev || isLoopback(host)
  const smtpPort = input.smtpPort === undefined || input.smtpPort === '' ? undefined : Number(input.smtpPort)
  if (smtpPort !== undefined && !(Number.isInteger(smtpPort) && smtpPort > 0 && smtpPort < 65536)) {
    throw new UsageError('SMTP_PORT must be an integer port number')
  }
  return {
    encryptionKey: parseHexKey(encryptionKey, 'ENCRYPTION_KEY'),
    jwtSecret: parseHexKey(jwtSecret, 'JWT_SECRET'),
    dbUrl,
    siteUrl: checkUrl('SITE_URL', input.siteUrl, relaxed),
    publicVaultUrl: checkUrl('PUBLIC_VAULT_URL', input.publicVaultUrl, relaxed),
    smtp: input.smtpHost ? { host: input.smtpHost, port: smtpPort ?? 587, from: input.smtpFrom } : undefined,
    host,
    port,
    dev,
    behindProxy: Boolean(input.behindProxy),
    trustedProxies,
    allowPrivateWebhooks: Boolean(input.allowPrivateWebhooks),
    requestsPerMinute,
    connections,
    tls: tlsGiven ? { cert: readFileSync(input.tlsCert!), key: readFileSync(input.tlsKey!) } : undefined,
    devFiles,
    warnings,
  }
}
