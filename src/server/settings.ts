/**
 * Every setting of `vault server`, declared once: its flag, its environment variable, its default and
 * its help. The command builds its oclif flags from this table, and the process entry (main.ts) reads
 * the same variables through it, so a setting cannot be known to one and not the other.
 */
import * as Flags from '@oclif/core/flags'
import type { ServerConfigInput } from './config.js'

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
}

/** The settings of `vault server`, by flag name. */
export const serverSettings: readonly ServerSetting[] = [
  {
    key: 'dbUrl',
    flag: 'db-url',
    env: 'DB_URL',
    kind: 'string',
    help: 'sqlite:///path/vault.db, a path, or postgres://...',
  },
  {
    key: 'encryptionKey',
    flag: 'encryption-key',
    env: 'ENCRYPTION_KEY',
    kind: 'string',
    secret: true,
    help: '64 hex characters; prefer the environment variable',
  },
  {
    key: 'jwtSecret',
    flag: 'jwt-secret',
    env: 'JWT_SECRET',
    kind: 'string',
    secret: true,
    help: '64 hex characters; prefer the environment variable',
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

/** The configuration input from parsed flags (which oclif already filled from the environment). */
export function configFromFlags(flags: Record<string, unknown>): ServerConfigInput {
  return Object.fromEntries(
    serverSettings.map((setting) => [setting.key, flags[setting.flag]]),
  ) as ServerConfigInput
}

const truthy = /^(1|true|yes|y)$/i

/** The configuration input from environment variables alone (the process entry, main.ts). */
export function configFromEnvironment(env: NodeJS.ProcessEnv): ServerConfigInput {
  const input: Record<string, unknown> = {}
  for (const setting of serverSettings) {
    const text = env[setting.env]
    if (text === undefined || text === '') {
      input[setting.key] = setting.default
      continue
    }
    if (setting.kind === 'boolean') input[setting.key] = truthy.test(text)
    else if (setting.kind === 'integer') input[setting.key] = Number(text)
    else input[setting.key] = text
  }
  return input as ServerConfigInput
}
