/**
 * What a restore keeps of the database it replaces. The live database's key fingerprint says which
 * vault it holds: a restore over another vault's database (another key) is refused unless that vault
 * is named with `--replace-vault FINGERPRINT`. Over the same vault, the revocations the live database
 * made after the archive was written are kept in the restored rows, so that a restore never brings
 * back a credential the live vault had already retired: a revoked identity or token stays revoked, a
 * client secret rotated since stays rotated (the tokens of the old one stay refused, their stamps no
 * longer match), a changed password stays changed, and an account removed since stays removed (the
 * last admin excepted). A credential works after the restore only if it worked, or never existed, in
 * the live database. The kept revocations are recorded in the restored audit log.
 */
import { ConflictError } from '../errors.js'
import { appendAudit } from '../server/audit/audit.js'
import type { Keyring } from '../server/keys/keyring.js'
import { sealRow } from '../server/keys/row-mac.js'
import type { SqlExecutor } from '../server/store/index.js'

/** Reads rows of the live database (a transaction, or the locked SQLite file). */
export type LiveReader = Pick<SqlExecutor, 'all'>

/** The live database's vault and the credentials it had retired. */
export interface LiveState {
  fingerprint: string
  identities: Map<string, { revokedAt: string | null; secretHash: string }>
  revokedTokens: Map<string, string>
  accounts: Map<string, string>
}

/** What the restore kept of the live database. */
export interface KeptRevocations {
  identitiesRevoked: number
  secretsRotated: number
  tokensRevoked: number
  passwordsChanged: number
  accountsRemoved: number
}

/** The live database's state, or null when it holds no vault yet (an empty or new database). */
export async function readLiveState(live: LiveReader): Promise<LiveState | null> {
  let fingerprint: string | undefined
  try {
    const [row] = await live.all<{ value: string }>(`SELECT value FROM meta WHERE key = 'kek_fingerprint'`)
    fingerprint = row?.value
  } catch {
    return null // no vault tables at all
  }
  if (fingerprint === undefined) return null
  const identities = new Map<string, { revokedAt: string | null; secretHash: string }>()
  for (const row of await live.all<{ id: string; revoked_at: string | null; secret_hash: string }>(
    `SELECT id, revoked_at, secret_hash FROM identities`,
  ))
    identities.set(String(row.id), { revokedAt: row.revoked_at ?? null, secretHash: String(row.secret_hash) })
  const revokedTokens = new Map<string, string>()
  for (const row of await live.all<{ jti: string; revoked_at: string }>(
    `SELECT jti, revoked_at FROM access_tokens WHERE revoked_at IS NOT NULL`,
  ))
    revokedTokens.set(String(row.jti), String(row.revoked_at))
  const accounts = new Map<string, string>()
  for (const row of await live.all<{ id: string; password_hash: string }>(
    `SELECT id, password_hash FROM admins`,
  ))
    accounts.set(String(row.id), String(row.password_hash))
  return { fingerprint, identities, revokedTokens, accounts }
}

/**
 * Refuses to restore an archive of vault `archived` (its key fingerprint) over a database holding
 * another vault, unless `replaceVault` names that vault's fingerprint. Answers whether the live
 * database's revocations are to be kept (it holds the archive's vault).
 */
export function checkSameVault(
  live: LiveState | null,
  archived: string | null,
  target: { database: string; replaceVault?: string },
): boolean {
  if (!live) return false
  if (live.fingerprint === archived) return true
  if (target.replaceVault === live.fingerprint) return false
  throw new ConflictError(
    `the database ${target.database} holds another vault (key fingerprint ${live.fingerprint}; the archive's is ${archived ?? 'none'}); nothing was changed`,
    {
      hint:
        target.replaceVault === undefined
          ? `to replace that vault and everything in it with the archive, add --replace-vault ${live.fingerprint}`
          : `--replace-vault names ${/^[0-9a-f]{16}$/.test(target.replaceVault) ? target.replaceVault : 'no key fingerprint'}, but the database holds ${live.fingerprint}`,
    },
  )
}

/** Applies the live database's revocations to the restored rows (in `tx`), audited; returns the counts. */
export async function keepLiveRevocations(
  tx: SqlExecutor,
  keyring: Keyring,
  live: LiveState,
): Promise<KeptRevocations> {
  const kept: KeptRevocations = {
    identitiesRevoked: 0,
    secretsRotated: 0,
    tokensRevoked: 0,
    passwordsChanged: 0,
    accountsRemoved: 0,
  }
  const restoredIdentities = await tx.all<{ id: string; revoked_at: string | null; secret_hash: string }>(
    `SELECT id, revoked_at, secret_hash FROM identities`,
  )
  for (const row of restoredIdentities) {
    const current = live.identities.get(String(row.id))
    if (!current) continue
    const revoke = row.revoked_at === null && current.revokedAt !== null
    const rotated = current.secretHash !== row.secret_hash
    if (!revoke && !rotated) continue
    await tx.run(`UPDATE identities SET revoked_at = COALESCE(revoked_at, ?), secret_hash = ? WHERE id = ?`, [
      current.revokedAt,
      current.secretHash,
      row.id,
    ])
    await sealRow(tx, keyring.rowMacKey, 'identities', String(row.id))
    if (revoke) kept.identitiesRevoked++
    if (rotated) kept.secretsRotated++
  }
  const restoredTokens = await tx.all<{ jti: string }>(
    `SELECT jti FROM access_tokens WHERE revoked_at IS NULL`,
  )
  for (const { jti } of restoredTokens) {
    const revokedAt = live.revokedTokens.get(String(jti))
    if (revokedAt === undefined) continue
    await tx.run(`UPDATE access_tokens SET revoked_at = ? WHERE jti = ?`, [revokedAt, jti])
    kept.tokensRevoked++
  }
  await keepAccountChanges(tx, keyring, live, kept)
  const total = Object.values(kept).reduce((sum, count) => sum + count, 0)
  if (total > 0) {
    await appendAudit(tx, keyring.auditKey, {
      projectId: null,
      actor: 'admin:restore',
      action: 'backup.restore',
      result: 'ok',
      detail:
        `kept the revocations the replaced database made after the backup: ${kept.identitiesRevoked} identities revoked, ` +
        `${kept.secretsRotated} client secrets rotated, ${kept.tokensRevoked} tokens revoked, ` +
        `${kept.passwordsChanged} passwords changed, ${kept.accountsRemoved} accounts removed`,
    })
  }
  return kept
}

async function keepAccountChanges(
  tx: SqlExecutor,
  keyring: Keyring,
  live: LiveState,
  kept: KeptRevocations,
): Promise<void> {
  const restored = await tx.all<{ id: string; password_hash: string; role: string }>(
    `SELECT id, password_hash, role FROM admins ORDER BY id`,
  )
  let admins = restored.filter((row) => row.role === 'admin').length
  for (const row of restored) {
    const livePassword = live.accounts.get(String(row.id))
    if (livePassword === undefined) {
      if (row.role === 'admin' && admins <= 1) continue
      await tx.run(`DELETE FROM admins WHERE id = ?`, [row.id])
      if (row.role === 'admin') admins--
      kept.accountsRemoved++
    } else if (livePassword !== row.password_hash) {
      await tx.run(`UPDATE admins SET password_hash = ? WHERE id = ?`, [livePassword, row.id])
      await sealRow(tx, keyring.rowMacKey, 'admins', String(row.id))
      kept.passwordsChanged++
    }
  }
}
