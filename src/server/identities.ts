/**
 * Projects, environments and machine identities: creation, listing, revocation and secret rotation
 * (which revokes the identity's tokens). Client secrets are 256-bit random, shown once, stored as a
 * keyed hash. Shared by the admin commands and the bootstrap.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { ConflictError, NotFoundError, UsageError } from '../errors.js'
import type { Keyring } from './keys/keyring.js'
import type { CacheView } from './read-cache.js'
import { sealRow } from './keys/row-mac.js'
import type { SqlExecutor } from './store/index.js'

export type Permission = 'read' | 'write' | 'admin'
export type PermissionMap = Record<string, Permission[]>

export interface IdentitySummary {
  id: string
  projectId: string
  name: string
  clientId: string
  permissions: PermissionMap
  createdAt: string
  revokedAt: string | null
}

export interface NewCredentials {
  identity: IdentitySummary
  clientSecret: string
}

const slugPattern = /^[a-z][a-z0-9-]{0,31}$/
/** Names of projects and identities: shown in tables and audit rows, so plain characters only. */
const namePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/** Creates a project with its environments (dev and prod by default). */
export async function createProject(
  tx: SqlExecutor,
  name: string,
  environments: string[],
): Promise<{ id: string; name: string }> {
  if (!namePattern.test(name)) {
    throw new UsageError(`project name '${name}' is invalid`, { hint: 'use letters, digits, -, _ and .' })
  }
  const [existing] = await tx.all(`SELECT id FROM projects WHERE name = ?`, [name])
  if (existing) throw new ConflictError(`project '${name}' already exists`)
  const id = randomUUID()
  await tx.run(`INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)`, [
    id,
    name,
    new Date().toISOString(),
  ])
  for (const slug of environments) await createEnvironment(tx, id, slug)
  return { id, name }
}

/** Adds an environment to a project. */
export async function createEnvironment(tx: SqlExecutor, projectId: string, slug: string, name?: string) {
  if (!slugPattern.test(slug)) {
    throw new UsageError(`environment slug '${slug}' is invalid`, {
      hint: 'use lowercase letters, digits and -',
    })
  }
  await requireProject(tx, projectId)
  const [existing] = await tx.all(`SELECT slug FROM environments WHERE project_id = ? AND slug = ?`, [
    projectId,
    slug,
  ])
  if (existing) throw new ConflictError(`environment '${slug}' already exists`)
  const display = name ?? slug
  if (controlCharacters.test(display) || display.length > 100) {
    throw new UsageError('environment names are at most 100 characters, without control characters')
  }
  await tx.run(`INSERT INTO environments (project_id, slug, name, created_at) VALUES (?, ?, ?, ?)`, [
    projectId,
    slug,
    display,
    new Date().toISOString(),
  ])
  return { slug, name: display }
}

/** The environments of a project. */
export async function listEnvironments(
  tx: SqlExecutor,
  projectId: string,
): Promise<{ slug: string; name: string }[]> {
  await requireProject(tx, projectId)
  return tx.all<{ slug: string; name: string }>(
    `SELECT slug, name FROM environments WHERE project_id = ? ORDER BY created_at, slug`,
    [projectId],
  )
}

/** Whether environment `slug` exists in the project (an existing one is kept in the view's cache). */
export async function environmentExists(
  tx: SqlExecutor,
  projectId: string,
  slug: string,
  view?: CacheView,
): Promise<boolean> {
  const cached = view?.environmentExists(projectId, slug)
  if (cached !== undefined) return cached
  const [known] = await tx.all(`SELECT slug FROM environments WHERE project_id = ? AND slug = ?`, [
    projectId,
    slug,
  ])
  if (known) view?.storeEnvironment(projectId, slug, true)
  return known !== undefined
}

/** Finds a project by id or by name. */
export async function requireProject(
  tx: SqlExecutor,
  idOrName: string,
): Promise<{ id: string; name: string }> {
  const [row] = await tx.all<{ id: string; name: string }>(
    `SELECT id, name FROM projects WHERE id = ? OR name = ?`,
    [idOrName, idOrName],
  )
  if (!row)
    throw new NotFoundError(`project '${idOrName}' does not exist`, {
      hint: 'list projects with vault env list',
    })
  return row
}

/**
 * The levels `permissions` grants on environment `slug` (own entries only: an environment may be named
 * `constructor` or `toString`, and a permission map is never asked for what its prototype holds).
 */
export function grantsOn(permissions: PermissionMap, slug: string): Permission[] {
  const levels = Object.hasOwn(permissions, slug) ? permissions[slug] : undefined
  return Array.isArray(levels) ? levels : []
}

/** A permission map as stored (JSON), as a map without a prototype. */
export function parsePermissionMap(json: string): PermissionMap {
  const parsed: unknown = JSON.parse(json)
  const map: PermissionMap = Object.create(null) as PermissionMap
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return map
  for (const [slug, levels] of Object.entries(parsed)) {
    if (Array.isArray(levels))
      map[slug] = levels.filter((level): level is Permission => typeof level === 'string')
  }
  return map
}

/** Parses `dev=read,write;prod=read` or `*=read,write` into a permission map over existing environments. */
export function parsePermissions(text: string, environments: string[]): PermissionMap {
  const map: PermissionMap = Object.create(null) as PermissionMap
  for (const part of text
    .split(';')
    .map((piece) => piece.trim())
    .filter(Boolean)) {
    const [slug, levels] = part.split('=', 2)
    const permissions = (levels ?? '').split(',').map((level) => level.trim()) as Permission[]
    if (permissions.some((level) => !['read', 'write', 'admin'].includes(level))) {
      throw new UsageError(`permission '${part}' is invalid`, { hint: 'use e.g. dev=read,write;prod=read' })
    }
    const targets = slug === '*' ? environments : [slug!.trim()]
    for (const target of targets) {
      if (!environments.includes(target)) throw new UsageError(`environment '${target}' does not exist`)
      map[target] = [...new Set([...grantsOn(map, target), ...permissions])]
    }
  }
  return map
}

/** Creates a machine identity and returns its client secret (the only time it is visible). */
export async function createIdentity(
  tx: SqlExecutor,
  keyring: Keyring,
  identity: { projectId: string; name: string; permissions: PermissionMap },
): Promise<NewCredentials> {
  const { projectId, name, permissions } = identity
  if (!namePattern.test(name)) {
    throw new UsageError(`identity name '${name.slice(0, 64)}' is invalid`, {
      hint: 'use letters, digits, -, _ and . (at most 63)',
    })
  }
  const [existing] = await tx.all(`SELECT id FROM identities WHERE project_id = ? AND name = ?`, [
    projectId,
    name,
  ])
  if (existing) throw new ConflictError(`identity '${name}' already exists in this project`)
  const created: IdentitySummary = {
    id: randomUUID(),
    projectId,
    name,
    clientId: `vc_${randomBytes(12).toString('hex')}`,
    permissions,
    createdAt: new Date().toISOString(),
    revokedAt: null,
  }
  const clientSecret = `vs_${randomBytes(32).toString('base64url')}`
  await tx.run(
    `INSERT INTO identities (id, project_id, name, client_id, secret_hash, permissions, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [
      created.id,
      projectId,
      name,
      created.clientId,
      keyring.hashClientSecret(clientSecret, created.id),
      JSON.stringify(permissions),
      created.createdAt,
    ],
  )
  await sealRow(tx, keyring.rowMacKey, 'identities', created.id)
  return { identity: created, clientSecret }
}

/** The identities of a project. */
export async function listIdentities(tx: SqlExecutor, projectId: string): Promise<IdentitySummary[]> {
  const rows = await tx.all(
    `SELECT id, project_id, name, client_id, permissions, created_at, revoked_at FROM identities
     WHERE project_id = ? ORDER BY created_at, name`,
    [projectId],
  )
  return rows.map((row) => ({
    id: String(row.id),
    projectId: String(row.project_id),
    name: String(row.name),
    clientId: String(row.client_id),
    permissions: parsePermissionMap(String(row.permissions)),
    createdAt: String(row.created_at),
    revokedAt: (row.revoked_at as string | null) ?? null,
  }))
}

/** The id of the project's identity named `nameOrClientId` (name, client id or id), locked; NotFoundError. */
export async function findIdentity(tx: SqlExecutor, projectId: string, nameOrClientId: string) {
  const [row] = await tx.lockRows<{ id: string }>(
    `SELECT id FROM identities WHERE project_id = ? AND (name = ? OR client_id = ? OR id = ?)`,
    [projectId, nameOrClientId, nameOrClientId, nameOrClientId],
  )
  if (!row) throw new NotFoundError(`identity '${nameOrClientId}' does not exist in this project`)
  return row.id
}

async function revokeTokensOf(tx: SqlExecutor, identityId: string, now: string): Promise<void> {
  await tx.run(`UPDATE access_tokens SET revoked_at = ? WHERE identity_id = ? AND revoked_at IS NULL`, [
    now,
    identityId,
  ])
}

/** Revokes an identity and every token it holds. */
export async function revokeIdentity(
  tx: SqlExecutor,
  keyring: Keyring,
  projectId: string,
  nameOrClientId: string,
): Promise<void> {
  const id = await findIdentity(tx, projectId, nameOrClientId)
  const now = new Date().toISOString()
  await tx.run(`UPDATE identities SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, [now, id])
  await sealRow(tx, keyring.rowMacKey, 'identities', id)
  await revokeTokensOf(tx, id, now)
}

/** Gives an identity a new client secret; its old secret and all its tokens stop working at once. */
export async function rotateIdentitySecret(
  tx: SqlExecutor,
  keyring: Keyring,
  projectId: string,
  nameOrClientId: string,
): Promise<{ clientId: string; clientSecret: string }> {
  const id = await findIdentity(tx, projectId, nameOrClientId)
  const clientSecret = `vs_${randomBytes(32).toString('base64url')}`
  const now = new Date().toISOString()
  await tx.run(`UPDATE identities SET secret_hash = ?, failed_logins = 0, locked_until = NULL WHERE id = ?`, [
    keyring.hashClientSecret(clientSecret, id),
    id,
  ])
  await sealRow(tx, keyring.rowMacKey, 'identities', id)
  await revokeTokensOf(tx, id, now)
  const [row] = await tx.all<{ client_id: string }>(`SELECT client_id FROM identities WHERE id = ?`, [id])
  return { clientId: row!.client_id, clientSecret }
}
