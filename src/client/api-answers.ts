/**
 * The shape of each answer of the vault API the CLI reads (secrets, versions, whoami, environments,
 * health, the change feed's events), as decoders built from vault-answer.ts: each returns a fresh
 * value holding the known fields alone, with every secret name checked against the server's rule.
 */
import {
  arrayOf,
  boolean,
  count,
  field,
  nonEmptyString,
  object,
  oneOf,
  optional,
  secretName,
  string,
  uniqueNames,
  type Decoder,
} from './vault-answer.js'

export interface SecretMetadata {
  name: string
  version: number
  createdAt: string
  updatedAt: string
  /** The value is a template whose `${OTHER}` the CLI resolves (src/client/resolve-templates.ts). */
  template?: boolean
  /** The value is not a secret (TZ, a domain): shown unmasked, never due for rotation. */
  plain?: boolean
}

export interface Secret extends SecretMetadata {
  value: string
}

export interface SecretVersion {
  version: number
  createdAt: string
  actor?: string
  /** The identity's name, when the actor is an identity that still exists. */
  actorName?: string
  deleted?: boolean
}

export interface WhoAmI {
  identity: { id: string; name: string; clientId: string }
  project: { id: string; name: string }
  permissions: Record<string, string[]>
}

export interface Environment {
  slug: string
  name: string
}

export interface Health {
  status: string
  version?: string
  schemaVersion?: number
}

/** One changed secret, as the feed names it (never a value). */
export interface SecretChange {
  name: string
  version: number
  change: 'created' | 'updated' | 'deleted' | 'rolled_back'
  at: string
}

export const secretMetadataAnswer: Decoder<SecretMetadata> = (value, where) => {
  const record = object(value, where)
  const template = field(record, 'template', optional(boolean), where)
  const plain = field(record, 'plain', optional(boolean), where)
  return {
    name: field(record, 'name', secretName, where),
    version: field(record, 'version', count, where),
    createdAt: field(record, 'createdAt', string, where),
    updatedAt: field(record, 'updatedAt', string, where),
    ...(template === true ? { template } : {}),
    ...(plain === true ? { plain } : {}),
  }
}

export const secretAnswer: Decoder<Secret> = (value, where) => ({
  ...secretMetadataAnswer(value, where),
  value: field(object(value, where), 'value', string, where),
})

/**
 * One version of a secret (`GET secrets/NAME/versions/N`): a version is never updated, so the server
 * sends its createdAt alone; updatedAt, when absent, is that createdAt.
 */
export const secretVersionAnswer: Decoder<Secret> = (value, where) => {
  const record = object(value, where)
  const createdAt = field(record, 'createdAt', string, where)
  const updatedAt = field(record, 'updatedAt', optional(string), where)
  return secretAnswer({ ...record, updatedAt: updatedAt ?? createdAt }, where)
}

/** `{ secrets: [...] }` with values (`withValues`) or metadata alone; a name given twice is refused. */
export function secretListAnswer(withValues: true): Decoder<Secret[]>
export function secretListAnswer(withValues: false): Decoder<SecretMetadata[]>
export function secretListAnswer(withValues: boolean): Decoder<SecretMetadata[]> {
  const item = withValues ? secretAnswer : secretMetadataAnswer
  return (value, where) =>
    uniqueNames(
      field(object(value, where), 'secrets', arrayOf(item), where),
      where ? `${where}.secrets` : 'secrets',
    )
}

const versionAnswer: Decoder<SecretVersion> = (value, where) => {
  const record = object(value, where)
  const actor = field(record, 'actor', optional(string), where)
  const actorName = field(record, 'actorName', optional(string), where)
  const deleted = field(record, 'deleted', optional(boolean), where)
  return {
    version: field(record, 'version', count, where),
    createdAt: field(record, 'createdAt', string, where),
    ...(actor === undefined ? {} : { actor }),
    ...(actorName === undefined ? {} : { actorName }),
    ...(deleted === undefined ? {} : { deleted }),
  }
}

export const versionsAnswer: Decoder<SecretVersion[]> = (value, where) =>
  field(object(value, where), 'versions', arrayOf(versionAnswer), where)

export const whoAmIAnswer: Decoder<WhoAmI> = (value, where) => {
  const record = object(value, where)
  const identity = field(record, 'identity', object, where)
  const project = field(record, 'project', object, where)
  const permissions = field(record, 'permissions', object, where)
  const at = (name: string) => (where ? `${where}.${name}` : name)
  return {
    identity: {
      id: field(identity, 'id', string, at('identity')),
      name: field(identity, 'name', string, at('identity')),
      clientId: field(identity, 'clientId', string, at('identity')),
    },
    project: {
      id: field(project, 'id', string, at('project')),
      name: field(project, 'name', string, at('project')),
    },
    permissions: Object.fromEntries(
      Object.keys(permissions).map((key) => [
        key,
        field(permissions, key, arrayOf(string), at('permissions')),
      ]),
    ),
  }
}

const environmentAnswer: Decoder<Environment> = (value, where) => {
  const record = object(value, where)
  return { slug: field(record, 'slug', string, where), name: field(record, 'name', string, where) }
}

export const environmentsAnswer: Decoder<Environment[]> = (value, where) =>
  field(object(value, where), 'environments', arrayOf(environmentAnswer), where)

export const healthAnswer: Decoder<Health> = (value, where) => {
  const record = object(value, where)
  const version = field(record, 'version', optional(string), where)
  const schemaVersion = field(record, 'schemaVersion', optional(count), where)
  return {
    status: field(record, 'status', string, where),
    ...(version === undefined ? {} : { version }),
    ...(schemaVersion === undefined ? {} : { schemaVersion }),
  }
}

const changeKinds = ['created', 'updated', 'deleted', 'rolled_back'] as const

/** The data of a `secret` event of the change feed. */
export const secretChangeAnswer: Decoder<SecretChange> = (value, where) => {
  const record = object(value, where)
  return {
    name: field(record, 'name', secretName, where),
    version: field(record, 'version', count, where),
    change: field(record, 'change', oneOf(changeKinds), where),
    at: field(record, 'at', string, where),
  }
}

/** The data of an `error` event of the change feed: the server's refusal. */
export const feedRefusalAnswer: Decoder<{ code?: string; message?: string }> = (value, where) => {
  const record = object(value, where)
  const code = field(record, 'code', optional(string), where)
  const message = field(record, 'message', optional(string), where)
  return { ...(code === undefined ? {} : { code }), ...(message === undefined ? {} : { message }) }
}

/** The answer of a token request (`POST auth/token`) or a sign-in (`POST auth/signin`). */
export interface TokenAnswer {
  accessToken: string
  /** Seconds the token lives (900 when the answer does not say). */
  expiresIn: number
  /** A human's role, for a sign-in. */
  role?: string
}

export const tokenAnswer: Decoder<TokenAnswer> = (value, where) => {
  const record = object(value, where)
  const accessToken = field(record, 'access_token', nonEmptyString, where)
  const user = field(record, 'user', optional(object), where)
  const role = user && field(user, 'role', optional(string), where ? `${where}.user` : 'user')
  return {
    accessToken,
    expiresIn: field(record, 'expires_in', optional(count), where) ?? 900,
    ...(role === undefined ? {} : { role }),
  }
}
