/**
 * Every setting of `vault server`, declared once: its flag, its environment variable, its default and
 * its help. The command builds its oclif flags from this table, and the process entry (main.ts) reads
 * the same variables through it, so a setting cannot be known to one and not the other. The key
 * material (`VAULT_DB_URL`, `VAULT_ENCRYPTION_KEY`, `VAULT_JWT_SECRET`) may come from a file named by
 * the variable's `_FILE` twin (systemd's LoadCredential); its earlier unprefixed name still works,
 * with a deprecation warning (a stack's own `ENCRYPTION_KEY` is not the server's).
 */
import * as Flags from '@oclif/core/flags'
import { UsageError } from '../errors.js'
import type { ServerConfigInput } from './config.js'
import { defaultConnectionLimits } from './http/connection-limits.js'
import { readSettingFile } from './setting-file.js'

type SettingKind = 'string' | 'integer' | 'boolean' | 'file' | 'directory'

/** One server setting. */
export interface ServerSetting {
  /** The field of ServerConfigInput it fills. */
  key: keyof ServerConfigInput
  flag: string
  env: string
  kind: SettingKind
  help: string
  default?: string | number
  /** Holds key material: never printed. */
  secret?: boolean
  /** Also read from the file named by `${env}_FILE`. */
  fromFile?: boolean
  /** The variable's earlier name, still read (with a deprecation warning) when neither is set. */
  legacyEnv?: string
}

/** The settings of `vault server`, by flag name. */
export const serverSettings: readonly ServerSetting[] = [
  {
    key: 'dbUrl',
    flag: 'db-url',
    env: 'VAULT_DB_URL',
    legacyEnv: 'DB_URL',
    fromFile: true,
    kind: 'string',
    help: 'sqlite:///path/vault.db, a path, or postgres://...',
  },
  {
    key: 'encryptionKey',
    flag: 'encryption-key',
    env: 'VAULT_ENCRYPTION_KEY',
    legacyEnv: 'ENCRYPTION_KEY',
    fromFile: true,
    kind: 'string',
    secret: true,
    help: '64 hex characters; prefer VAULT_ENCRYPTION_KEY_FILE',
  },
  {
    key: 'jwtSecret',
    flag: 'jwt-secret',
    env: 'VAULT_JWT_SECRET',
    legacyEnv: 'JWT_SECRET',
    fromFile: true,
    kind: 'string',
    secret: true,
    help: '64 hex characters; prefer VAULT_JWT_SECRET_FILE',
  },
  {
    key: 'siteUrl',
    flag: 'site-url',
    env: 'SITE_URL',
    kind: 'string',
    help: 'public https URL of the vault',
  },
  {
    key: 'publicVaultUrl',
    flag: 'public-vault-url',
    env: 'PUBLIC_VAULT_URL',
    kind: 'string',
    help: 'public https URL for the frontend',
  },
  {
    key: 'smtpHost',
    flag: 'smtp-host',
    env: 'SMTP_HOST',
    kind: 'string',
    help: 'SMTP relay for notification mail',
  },
  { key: 'smtpPort', flag: 'smtp-port', env: 'SMTP_PORT', kind: 'string', help: 'SMTP port [default: 587]' },
  {
    key: 'smtpFrom',
    flag: 'smtp-from',
    env: 'SMTP_FROM',
    kind: 'string',
    help: 'sender address of notification mail',
  },
  {
    key: 'host',
    flag: 'host',
    env: 'VAULT_HOST',
    kind: 'string',
    default: '127.0.0.1',
    help: 'address to listen on',
  },
  {
    key: 'port',
    flag: 'port',
    env: 'VAULT_PORT',
    kind: 'integer',
    default: 8200,
    help: 'port to listen on (0: any free port)',
  },
  {
    key: 'dev',
    flag: 'dev',
    env: 'VAULT_DEV',
    kind: 'boolean',
    help: 'development mode: generated keys, SQLite in the data directory, plain HTTP',
  },
  {
    key: 'dataDir',
    flag: 'data-dir',
    env: 'VAULT_DATA_DIR',
    kind: 'directory',
    help: "with --dev: where the database and generated keys live; refused unless it, the keys and the database are this user's own and no one else can write them [default: a temporary directory]",
  },
  {
    key: 'tlsCert',
    flag: 'tls-cert',
    env: 'VAULT_TLS_CERT',
    kind: 'file',
    help: 'PEM certificate: serve HTTPS (with --tls-key)',
  },
  {
    key: 'tlsKey',
    flag: 'tls-key',
    env: 'VAULT_TLS_KEY',
    kind: 'file',
    help: 'PEM private key (with --tls-cert)',
  },
  {
    key: 'behindProxy',
    flag: 'behind-proxy',
    env: 'VAULT_BEHIND_PROXY',
    kind: 'boolean',
    help: 'plain HTTP on any address, behind a TLS-terminating gateway',
  },
  {
    key: 'trustedProxies',
    flag: 'trusted-proxies',
    env: 'VAULT_TRUSTED_PROXIES',
    kind: 'string',
    help: 'CIDR ranges of proxies whose X-Forwarded-For is believed (right-most untrusted hop), e.g. 172.16.0.0/12',
  },
  {
    key: 'allowPrivateWebhooks',
    flag: 'allow-private-webhooks',
    env: 'VAULT_ALLOW_PRIVATE_WEBHOOKS',
    kind: 'boolean',
    help: 'deliver webhooks to loopback, private and link-local receivers',
  },
  {
    key: 'requestsPerMinute',
    flag: 'requests-per-minute',
    env: 'VAULT_REQUESTS_PER_MINUTE',
    kind: 'integer',
    default: 3000,
    help: 'requests per minute allowed from one client address on every endpoint',
  },
  {
    key: 'connectionsPerSource',
    flag: 'connections-per-source',
    env: 'VAULT_CONNECTIONS_PER_SOURCE',
    kind: 'integer',
    default: defaultConnectionLimits.connectionsPerSource,
    help: 'sockets one client address may hold open at once (more are closed at accept)',
  },
  {
    key: 'connectionsPerProxy',
    flag: 'connections-per-proxy',
    env: 'VAULT_CONNECTIONS_PER_PROXY',
    kind: 'integer',
    default: defaultConnectionLimits.connectionsPerProxy,
    help: 'sockets one trusted proxy may hold open at once (every peer behind --behind-proxy without --trusted-proxies)',
  },
  {
    key: 'headersTimeoutMs',
    flag: 'headers-timeout-ms',
    env: 'VAULT_HEADERS_TIMEOUT_MS',
    kind: 'integer',
    default: defaultConnectionLimits.headersTimeoutMs,
    help: 'milliseconds a request has to send its headers (408 and close beyond)',
  },
  {
    key: 'requestTimeoutMs',
    flag: 'request-timeout-ms',
    env: 'VAULT_REQUEST_TIMEOUT_MS',
    kind: 'integer',
    default: defaultConnectionLimits.requestTimeoutMs,
    help: 'milliseconds a request has to send its headers and body (408 and close beyond)',
  },
]

function flagOf(setting: ServerSetting) {
  const common = { env: setting.env, summary: setting.help }
  switch (setting.kind) {
    case 'boolean':
      return Flags.boolean(common)
    case 'integer':
      return Flags.integer({ ...common, min: 0, default: setting.default as number | undefined })
    case 'file':
      return Flags.file(common)
    case 'directory':
      return Flags.directory(common)
    default:
      return Flags.string({ ...common, default: setting.default as string | undefined })
  }
}

/** The oclif flags of every server setting. */
export function serverFlags() {
  return Object.fromEntries(serverSettings.map((setting) => [setting.flag, flagOf(setting)]))
}

/** Reports a deprecated variable (one line). */
export type SettingWarn = (line: string) => void

function given(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : text
}

/**
 * The text of `setting` from the environment: its variable, else the file its `_FILE` twin names, else
 * its earlier name (with a warning). Both the variable and its `_FILE` set is a usage error.
 */
export function settingText(
  setting: ServerSetting,
  env: NodeJS.ProcessEnv,
  warn: SettingWarn,
): string | undefined {
  const direct = given(env[setting.env])
  const fileVariable = `${setting.env}_FILE`
  const file = setting.fromFile ? given(env[fileVariable]) : undefined
  if (direct !== undefined && file !== undefined) {
    throw new UsageError(`both ${setting.env} and ${fileVariable} are set`, { hint: `unset one of them` })
  }
  if (direct !== undefined) return direct
  if (file !== undefined) return readSettingFile(fileVariable, file)
  const legacy = setting.legacyEnv ? given(env[setting.legacyEnv]) : undefined
  if (legacy !== undefined) {
    warn(
      `${setting.legacyEnv} is deprecated for the vault server: use ${setting.env}${setting.fromFile ? ` or ${fileVariable}` : ''}`,
    )
  }
  return legacy
}

/** The setting of `key`. */
export function serverSetting(key: keyof ServerConfigInput): ServerSetting {
  return serverSettings.find((setting) => setting.key === key)!
}

/**
 * The configuration input from parsed flags (which oclif filled from each setting's variable), the
 * `_FILE` twins and earlier names of `env` filling what neither gave.
 */
export function configFromFlags(
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  warn: SettingWarn = () => undefined,
): ServerConfigInput {
  return Object.fromEntries(
    serverSettings.map((setting) => {
      const value = flags[setting.flag]
      const fromCommandLine = value !== undefined && value !== env[setting.env]
      if (fromCommandLine || !(setting.fromFile || setting.legacyEnv)) return [setting.key, value]
      return [setting.key, settingText(setting, env, warn) ?? value]
    }),
  ) as ServerConfigInput
}

const truthy = /^(1|true|yes|y)$/i

/** The configuration input from environment variables alone (the process entry, main.ts). */
export function configFromEnvironment(
  env: NodeJS.ProcessEnv,
  warn: SettingWarn = () => undefined,
): ServerConfigInput {
  const input: Record<string, unknown> = {}
  for (const setting of serverSettings) {
    const text = settingText(setting, env, warn)
    if (text === undefined) {
      input[setting.key] = setting.default
      continue
    }
    if (setting.kind === 'boolean') input[setting.key] = truthy.test(text)
    else if (setting.kind === 'integer') input[setting.key] = Number(text)
    else input[setting.key] = text
  }
  return input as ServerConfigInput
}
