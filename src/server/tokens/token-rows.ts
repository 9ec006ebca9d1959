/**
 * The rows behind authentication: an identity as the token endpoint sees it, the access-token (jti)
 * rows, and the principal a token stands for. Every SQL statement of the auth layer lives here. A
 * token's row carries the stamp of the client-secret hash it was issued against (keys/stamp.ts): once
 * `rotate-secret` has committed, a token issued with the old secret is refused, even one whose request
 * was still in flight when the rotation revoked the identity's tokens.
 */
import { credentialStamp, stampMatches } from '../keys/stamp.js'
import { parsePermissionMap, type PermissionMap } from '../identities.js'
import type { SqlExecutor } from '../store/index.js'
import type { AccessClaims } from './tokens.js'

/** An identity as the token endpoint needs it. */
export interface LoginIdentity {
  id: string
  projectId: string
  secretHash: string
  revoked: boolean
}

/** The identity holding `clientId`, or undefined. */
export async function findLoginIdentity(
  tx: SqlExecutor,
  clientId: string,
): Promise<LoginIdentity | undefined> {
  const [row] = await tx.all<{
    id: string
    project_id: string
    secret_hash: string
    revoked_at: string | null
  }>(`SELECT id, project_id, secret_hash, revoked_at FROM identities WHERE client_id = ?`, [clientId])
  if (!row) return undefined
  return {
    id: row.id,
    projectId: row.project_id,
    secretHash: row.secret_hash,
    revoked: row.revoked_at !== null,
  }
}

/** Records an issued token (its jti) and drops the identity's tokens that expired over a day ago. */
export async function insertAccessToken(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  issued: { identity: LoginIdentity; claims: AccessClaims },
): Promise<void> {
  const { identity, claims } = issued
  await tx.run(
    `INSERT INTO access_tokens (jti, identity_id, issued_at, expires_at, secret_stamp) VALUES (?, ?, ?, ?, ?)`,
    [
      claims.jti,
      identity.id,
      new Date(claims.iat * 1000).toISOString(),
      new Date(claims.exp * 1000).toISOString(),
      credentialStamp(rowMacKey, identity.secretHash),
    ],
  )
  await tx.run(`DELETE FROM access_tokens WHERE identity_id = ? AND expires_at < ?`, [
    identity.id,
    new Date(claims.iat * 1000 - 86_400_000).toISOString(),
  ])
}

/** Marks one token revoked (no-op when it already is or does not exist). */
export async function revokeAccessToken(tx: SqlExecutor, jti: string): Promise<void> {
  await tx.run(`UPDATE access_tokens SET revoked_at = ? WHERE jti = ? AND revoked_at IS NULL`, [
    new Date().toISOString(),
    jti,
  ])
}

/** What a token's jti row says about its identity. */
export interface TokenHolder {
  tokenRevoked: boolean
  identityRevoked: boolean
  /** The identity's client secret changed since the token was issued (or the row has no stamp). */
  secretRotated: boolean
  projectId: string
  name: string
  clientId: string
  permissions: PermissionMap
}

/** The holder of token `jti` (joined with its identity), or undefined when the jti is unknown. */
export async function findTokenHolder(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  jti: string,
): Promise<TokenHolder | undefined> {
  const [found] = await tx.all(
    `SELECT t.revoked_at AS token_revoked, t.secret_stamp, i.revoked_at AS identity_revoked, i.secret_hash,
     i.name, i.client_id, i.permissions, i.project_id
     FROM access_tokens t JOIN identities i ON i.id = t.identity_id WHERE t.jti = ?`,
    [jti],
  )
  if (!found) return undefined
  return {
    tokenRevoked: Boolean(found.token_revoked),
    identityRevoked: Boolean(found.identity_revoked),
    secretRotated: !stampMatches(rowMacKey, found.secret_stamp, String(found.secret_hash)),
    projectId: String(found.project_id),
    name: String(found.name),
    clientId: String(found.client_id),
    permissions: parsePermissionMap(String(found.permissions)),
  }
}
