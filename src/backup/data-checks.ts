/**
 * The checks on the data of a restored database, or of an archive loaded into a throwaway store, that
 * need the key: the configured ENCRYPTION_KEY against the fingerprint the data records (the keyring
 * refuses another key), a trial decryption of every secret version, and the server's own integrity
 * check (audit chain and head, row MACs, an audit event for every version). Errors name what failed,
 * never a value or key.
 */
import { parseHexKey } from '../crypto/envelope.js'
import { IntegrityError, NotConfiguredError } from '../errors.js'
import { paceRows } from '../process/gc-pacer.js'
import { checkStoreIntegrity, integrityProblems } from '../server/keys/integrity.js'
import { loadKeyring, type Keyring } from '../server/keys/keyring.js'
import { type SqlDriver, type SqlExecutor, type SqlRow } from '../server/store/index.js'

const fingerprintMetaKey = 'kek_fingerprint'
const pageSize = 500

export interface DataCheckSummary {
  /** Secret versions that decrypted under the configured key. */
  secretVersions: number
  /** Audit events whose chain verified. */
  auditEvents: number
}

/** Parses ENCRYPTION_KEY; a missing one is NotConfigured (it is never in the archive). */
export function readEncryptionKey(text: string | undefined): Buffer {
  if (text === undefined || text.trim() === '') {
    throw new NotConfiguredError(
      'ENCRYPTION_KEY is not set; it is needed to write, check and restore a backup (the archive is authenticated with it)',
      {
        hint: 'set ENCRYPTION_KEY to the key the backed-up vault ran with (it is kept apart from the archive)',
      },
    )
  }
  return parseHexKey(text, 'ENCRYPTION_KEY')
}

/** The key fingerprint recorded in the `meta` table of a snapshot, or null. */
export function recordedFingerprint(tables: Record<string, SqlRow[]>): string | null {
  const row = (tables.meta ?? []).find((candidate) => candidate.key === fingerprintMetaKey)
  return row ? String(row.value) : null
}

/**
 * Trial-decrypts every secret version of `store` under `kek` (a page at a time) and runs the integrity
 * check (audit chain and head, row MACs, an audit event for every version).
 */
export async function checkStoreData(store: SqlDriver, kek: Buffer): Promise<DataCheckSummary> {
  const [recorded] = await store.transaction((tx) =>
    tx.all(`SELECT value FROM meta WHERE key = ? AND EXISTS (SELECT 1 FROM root_keys)`, [fingerprintMetaKey]),
  )
  if (!recorded) {
    throw new IntegrityError('the archive records no key fingerprint or root key; nothing was changed', {
      hint: 'this archive was not written by vault backup from an initialised vault',
    })
  }
  const keyring = await loadKeyring(store, kek)
  const secretVersions = await store.transaction((tx) => decryptEveryVersion(tx, keyring))
  const report = await checkStoreIntegrity(store, keyring)
  if (!report.ok) {
    throw new IntegrityError(
      `the archived data fails its integrity check (${integrityProblems(report).slice(0, 3).join('; ')}); nothing was changed`,
      { hint: 'the data was altered before or after the backup; use another backup' },
    )
  }
  return { secretVersions, auditEvents: report.audit.events }
}

async function decryptEveryVersion(tx: SqlExecutor, keyring: Keyring): Promise<number> {
  let count = 0
  let after: [string, number] = ['', 0]
  for (;;) {
    const rows = await tx.all(
      `SELECT s.project_id, s.environment, s.name, v.secret_id, v.version, v.ciphertext, v.key_version
         FROM secret_versions v JOIN secrets s ON s.id = v.secret_id
        WHERE v.ciphertext IS NOT NULL AND (v.secret_id > ? OR (v.secret_id = ? AND v.version > ?))
        ORDER BY v.secret_id, v.version LIMIT ?`,
      [after[0], after[0], after[1], pageSize],
    )
    for (const row of rows) {
      const at = {
        projectId: String(row.project_id),
        environment: String(row.environment),
        name: String(row.name),
        version: Number(row.version),
      }
      try {
        await keyring.trialOpen(tx, at, String(row.ciphertext), Number(row.key_version))
      } catch (error) {
        throw new IntegrityError(
          `${at.name} version ${at.version} (${at.environment}) does not decrypt under ENCRYPTION_KEY; nothing was changed`,
          { cause: error, hint: 'the data was altered or comes from another vault; use another backup' },
        )
      }
    }
    count += rows.length
    paceRows(rows.length)
    if (rows.length < pageSize) return count
    const last = rows.at(-1)!
    after = [String(last.secret_id), Number(last.version)]
  }
}

/** A driver whose every transaction is the caller's open transaction `tx` (for checks before a commit). */
export function driverOverTransaction(tx: SqlExecutor, engine: SqlDriver['engine']): SqlDriver {
  return {
    engine,
    transaction: (work) => work(tx),
    exclusive: (_name, work) => work(tx),
    close: async () => undefined,
  }
}
