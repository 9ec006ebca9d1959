/**
 * The checks on the data of an archive or of a restored database that need the key: the configured
 * ENCRYPTION_KEY against the fingerprint the data records, a trial decryption of every secret version,
 * and the server's own integrity check (audit chain and head, row MACs, an audit event for every
 * version), through the server's own keyring (an archive is loaded into a throwaway store in a private
 * temporary directory for this). Errors name what failed, never a value or key.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { keyFingerprint, parseHexKey } from '../crypto/envelope.js'
import { IntegrityError, NotConfiguredError } from '../errors.js'
import { checkStoreIntegrity, integrityProblems } from '../server/integrity.js'
import { loadKeyring } from '../server/keyring.js'
import { type SqlDriver, type SqlExecutor, type SqlRow } from '../server/store/index.js'
import { migrate } from '../server/store/migrations.js'
import { openSqlite } from '../server/store/sqlite.js'
import { insertTables } from './insert-rows.js'
import type { BackupManifest } from './manifest.js'

const fingerprintMetaKey = 'kek_fingerprint'

export interface DataCheckSummary {
  /** Secret versions that decrypted under the configured key. */
  secretVersions: number
  /** Audit events whose chain verified. */
  auditEvents: number
}

/** Parses ENCRYPTION_KEY; a missing one is NotConfigured (it is never in the archive). */
export function readEncryptionKey(text: string | undefined): Buffer {
  if (text === undefined || text.trim() === '') {
    throw new NotConfiguredError('ENCRYPTION_KEY is not set; it is needed to write, check and restore a backup (the archive is authenticated with it)', {
      hint: 'set ENCRYPTION_KEY to the key the backed-up vault ran with (it is kept apart from the archive)',
    })
  }
  return parseHexKey(text, 'ENCRYPTION_KEY')
}

/** The key fingerprint recorded in the `meta` table of a snapshot, or null. */
export function recordedFingerprint(tables: Record<string, SqlRow[]>): string | null {
  const row = (tables.meta ?? []).find((candidate) => candidate.key === fingerprintMetaKey)
  return row ? String(row.value) : null
}

/** Refuses when the key's fingerprint differs from the one the archive records. */
export function checkKeyMatches(
  manifest: BackupManifest,
  tables: Record<string, SqlRow[]>,
  kek: Buffer,
): void {
  const recorded = recordedFingerprint(tables)
  if (recorded === null || manifest.keyFingerprint !== recorded) {
    throw new IntegrityError('the archive records no usable key fingerprint; nothing was changed', {
      hint: 'this archive was not written by vault backup from an initialised vault',
    })
  }
  const actual = keyFingerprint(kek)
  if (actual !== recorded) {
    throw new IntegrityError(
      `ENCRYPTION_KEY does not match this archive (expects fingerprint ${recorded}, got ${actual}); nothing was changed`,
      { hint: 'set ENCRYPTION_KEY to the key the backed-up vault ran with' },
    )
  }
}

/**
 * Loads archive rows into a throwaway SQLite file (on disk, so its pages do not count against the
 * process's memory) and checks them there (see `checkStoreData`).
 */
export async function checkArchiveData(
  tables: Record<string, SqlRow[]>,
  kek: Buffer,
): Promise<DataCheckSummary> {
  const directory = await mkdtemp(join(tmpdir(), 'vault-verify-'))
  const store = openSqlite(join(directory, 'check.db'))
  try {
    await migrate(store)
    await store.transaction((tx) => insertTables(tx, tables))
    return await checkStoreData(store, kek)
  } finally {
    await store.close()
    await rm(directory, { recursive: true, force: true })
  }
}

/**
 * Trial-decrypts every secret version of `store` under `kek` and runs the integrity check (audit chain
 * and head, row MACs, an audit event for every version).
 */
export async function checkStoreData(store: SqlDriver, kek: Buffer): Promise<DataCheckSummary> {
  const keyring = await loadKeyring(store, kek)
  const secretVersions = await store.transaction(async (tx) => {
    const rows = await tx.all(
      `SELECT s.project_id, s.environment, s.name, v.version, v.ciphertext, v.key_version
         FROM secret_versions v JOIN secrets s ON s.id = v.secret_id WHERE v.ciphertext IS NOT NULL`,
    )
    for (const row of rows) {
      const at = {
        projectId: String(row.project_id),
        environment: String(row.environment),
        name: String(row.name),
        version: Number(row.version),
      }
      try {
        await keyring.openValue(tx, at, String(row.ciphertext), Number(row.key_version))
      } catch (error) {
        throw new IntegrityError(
          `${at.name} version ${at.version} (${at.environment}) does not decrypt under ENCRYPTION_KEY; nothing was changed`,
          { cause: error, hint: 'the data was altered or comes from another vault; use another backup' },
        )
      }
    }
    return rows.length
  })
  const report = await checkStoreIntegrity(store, keyring)
  if (!report.ok) {
    throw new IntegrityError(
      `the archived data fails its integrity check (${integrityProblems(report).slice(0, 3).join('; ')}); nothing was changed`,
      { hint: 'the data was altered before or after the backup; use another backup' },
    )
  }
  return { secretVersions, auditEvents: report.audit.events }
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
