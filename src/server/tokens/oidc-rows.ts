/**
 * The rows behind the OIDC grant: an identity with its trust (checked against its row MAC, so a trust
 * written into the database without the key is never honoured), writing a trust, and the used-token
 * (issuer, jti) rows that make each OIDC token single-use across every replica of one database.
 */
import type { Keyring } from '../keys/keyring.js'
import { protectedColumns, rowMacMatches, sealRow } from '../keys/row-mac.js'
import type { SqlExecutor } from '../store/index.js'
import { decodeOidcTrust, encodeOidcTrust, type OidcTrust } from './oidc-trust.js'

/** An identity as the OIDC grant needs it. */
export interface OidcIdentity {
  id: string
  projectId: string
  /** The client-secret hash, whose stamp a token issued to the identity carries (keys/stamp.ts). */
  secretHash: string
  revoked: boolean
  /** The stored trust text (compared again at issue time), or null. */
  storedTrust: string | null
  trust?: OidcTrust
  /** Whether the row's MAC holds (a false one is never trusted). */
  sealed: boolean
}

/** The identity holding `clientId` with its trust, or undefined. */
export async function findOidcIdentity(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  clientId: string,
): Promise<OidcIdentity | undefined> {
  const columns = [...protectedColumns.identities, 'oidc_trust', 'row_mac'].join(', ')
  const [row] = await tx.all(`SELECT ${columns} FROM identities WHERE client_id = ?`, [clientId])
  if (!row) return undefined
  const sealed = rowMacMatches(rowMacKey, 'identities', row)
  const storedTrust = (row.oidc_trust as string | null) ?? null
  return {
    id: String(row.id),
    projectId: String(row.project_id),
    secretHash: String(row.secret_hash),
    revoked: row.revoked_at !== null,
    storedTrust,
    trust: sealed ? decodeOidcTrust(storedTrust) : undefined,
    sealed,
  }
}

/** Sets (or, with null, removes) the OIDC trust of identity `id` and re-seals its row. */
export async function writeOidcTrust(
  tx: SqlExecutor,
  keyring: Keyring,
  id: string,
  trust: OidcTrust | null,
): Promise<void> {
  await tx.run(`UPDATE identities SET oidc_trust = ? WHERE id = ?`, [
    trust ? encodeOidcTrust(trust) : null,
    id,
  ])
  await sealRow(tx, keyring.rowMacKey, 'identities', id)
}

/**
 * Records the (issuer, jti) of an exchanged token until `expiresAt`; false when it was recorded before
 * (a replay). Drops the records that expired. On PostgreSQL a concurrent insert of the same pair waits
 * for the other transaction and then finds it.
 */
export async function recordUsedToken(
  tx: SqlExecutor,
  used: { issuer: string; jti: string; expiresAt: Date },
  now: Date,
): Promise<boolean> {
  await tx.run(`DELETE FROM oidc_used_tokens WHERE expires_at < ?`, [now.toISOString()])
  const inserted = await tx.run(
    `INSERT INTO oidc_used_tokens (issuer, jti, expires_at) VALUES (?, ?, ?) ON CONFLICT (issuer, jti) DO NOTHING`,
    [used.issuer, used.jti, used.expiresAt.toISOString()],
  )
  return inserted === 1
}
