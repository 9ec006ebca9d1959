/**
 * The seed's base secrets of a stack environment (section 2.4): what each one is, whether it is generated
 * or asked for, and how a value is validated. Pure data and functions; `vault secrets init` drives it.
 */
import { newValue } from '../crypto/new-value.js'
import { UsageError } from '../errors.js'

export type BaseSecretSource = 'password' | 'hex32' | 'input' | 'template'

export interface BaseSecretSpec {
  name: string
  summary: string
  source: BaseSecretSource
  required: boolean
  /** An input that is itself a credential: never taken from a flag (process listings show flags). */
  sensitive?: boolean
  /** For inputs: an example shown in prompts and help. */
  example?: string
  /** For inputs: returns an error message, or undefined when the value is acceptable. */
  validate?: (value: string) => string | undefined
  /** For templates: the `${OTHER}` text stored (src/client/resolve-templates.ts). */
  template?: string
  /** The literal default the stack's files publish: a vault holding it is replaced; its shape is kept. */
  published?: string
  /** Why the plan generates, asks for or templates it. */
  reason?: string
}

const absolutePath = (value: string) => (value.startsWith('/') ? undefined : 'must be an absolute path')
const integer = (value: string) => (/^\d+$/.test(value) ? undefined : 'must be a non-negative integer')
const nonEmpty = (value: string) => (value.trim() ? undefined : 'must not be empty')
const hostName = (value: string) =>
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(value)
    ? undefined
    : 'must be a host name such as example.com'

/** `<backend>:<bucket_name>:<path>`, the seed's BACKUP_REPOSITORY shape. */
export function validateBackupRepository(value: string): string | undefined {
  return /^[a-z0-9]+:[A-Za-z0-9._-]+:\S+$/.test(value)
    ? undefined
    : 'must look like <backend>:<bucket_name>:<path>'
}

/** A comma-separated list of IPv4 or IPv6 CIDR ranges. */
export function validateCidrList(value: string): string | undefined {
  const ipv4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}\/(3[0-2]|[12]?\d)$/
  const ipv6 = /^[0-9a-f:]+\/(12[0-8]|1[01]\d|\d?\d)$/i
  const ranges = value.split(',').map((range) => range.trim())
  const bad = ranges.find((range) => !ipv4.test(range) && !(range.includes(':') && ipv6.test(range)))
  return bad === undefined ? undefined : `"${bad}" is not a CIDR range (e.g. 10.0.0.0/8)`
}

/** A timezone name in region/city form that this runtime knows. */
export function validateTimezone(value: string): string | undefined {
  if (!/^[A-Za-z_]+\/[A-Za-z0-9_+\-/]+$/.test(value))
    return 'must be a region/city timezone such as Europe/Berlin'
  try {
    new Intl.DateTimeFormat('en', { timeZone: value })
    return undefined
  } catch {
    return `unknown timezone ${value}`
  }
}

/** The base secrets, in the seed's order. */
export const baseSecrets: readonly BaseSecretSpec[] = [
  {
    name: 'DATA_DIR',
    summary: 'absolute path of the data directory',
    source: 'input',
    required: true,
    example: '/srv/stack',
    validate: absolutePath,
  },
  {
    name: 'STACK_PROJECT_NAME',
    summary: 'name of the deployment project',
    source: 'input',
    required: true,
    example: 'homelab',
    validate: nonEmpty,
  },
  {
    name: 'DOMAINNAME',
    summary: 'base domain name',
    source: 'input',
    required: true,
    example: 'example.com',
    validate: hostName,
  },
  {
    name: 'GATEWAY_DOMAIN',
    summary: 'host name of the gateway dashboard',
    source: 'input',
    required: true,
    example: 'gateway.example.com',
    validate: hostName,
  },
  {
    name: 'GATEWAY_TRUSTED_IPS',
    summary: 'comma-separated CIDR ranges',
    source: 'input',
    required: true,
    example: '10.0.0.0/8,192.168.0.0/16',
    validate: validateCidrList,
  },
  {
    name: 'PUID',
    summary: 'host user id',
    source: 'input',
    required: true,
    example: '1000',
    validate: integer,
  },
  {
    name: 'PGID',
    summary: 'host group id',
    source: 'input',
    required: true,
    example: '1000',
    validate: integer,
  },
  {
    name: 'TZ',
    summary: 'timezone (region/city)',
    source: 'input',
    required: true,
    example: 'Europe/Berlin',
    validate: validateTimezone,
  },
  { name: 'DATABASE_PASSWORD', summary: 'database password', source: 'password', required: true },
  {
    name: 'AUTH_DB_PASSWORD',
    summary: "authentication service's database password",
    source: 'password',
    required: true,
  },
  { name: 'AUTH_JWT_SECRET', summary: '32-byte random value, hex', source: 'hex32', required: true },
  { name: 'AUTH_SESSION_SECRET', summary: '32-byte random value, hex', source: 'hex32', required: true },
  {
    name: 'AUTH_STORAGE_ENCRYPTION_KEY',
    summary: '32-byte random value, hex',
    source: 'hex32',
    required: true,
  },
  {
    name: 'GATEWAY_API_USER',
    summary: 'dashboard user name',
    source: 'input',
    required: true,
    example: 'admin',
    validate: nonEmpty,
  },
  { name: 'GATEWAY_API_PASSWORD', summary: 'dashboard password', source: 'password', required: true },
  { name: 'BACKUP_PASSWORD', summary: 'backup repository password', source: 'password', required: true },
  {
    name: 'OBJSTORE_ACCOUNT_ID',
    summary: 'object-storage key id',
    source: 'input',
    required: true,
    example: '0012ab34cd56',
    validate: nonEmpty,
  },
  {
    name: 'OBJSTORE_ACCOUNT_KEY',
    summary: 'object-storage application key',
    source: 'input',
    required: true,
    sensitive: true,
    example: 'K001...',
    validate: nonEmpty,
  },
  {
    name: 'BACKUP_REPOSITORY',
    summary: '<backend>:<bucket_name>:<path>',
    source: 'input',
    required: true,
    example: 'b2:my-bucket:stack',
    validate: validateBackupRepository,
  },
  {
    name: 'MESSENGER_BOT_TOKEN',
    summary: 'notification bot token (optional)',
    source: 'input',
    required: false,
    sensitive: true,
    validate: nonEmpty,
  },
  {
    name: 'MESSENGER_CHAT_ID',
    summary: 'notification chat id (optional)',
    source: 'input',
    required: false,
    validate: nonEmpty,
  },
]

/** The flag name of an input secret (`DATA_DIR` → `data-dir`). */
export function inputFlagName(spec: BaseSecretSpec): string {
  return spec.name.toLowerCase().replaceAll('_', '-')
}

/** A fresh value for a generated secret; inputs have none. */
export function generateBaseSecret(spec: BaseSecretSpec): string {
  if (spec.source === 'template' && spec.template !== undefined) return spec.template
  if (spec.source === 'password' || spec.source === 'hex32')
    return newValue(spec.source, undefined, spec.published)
  throw new UsageError(`${spec.name} is not generated: give it a value`)
}

/** Validates an input value; throws a UsageError naming the secret (never echoing a generated value). */
export function checkBaseSecretInput(spec: BaseSecretSpec, value: string): string {
  const problem = spec.validate?.(value)
  if (problem)
    throw new UsageError(`${spec.name} ${problem}`, {
      hint: spec.example ? `example: ${spec.example}` : undefined,
    })
  return value
}
