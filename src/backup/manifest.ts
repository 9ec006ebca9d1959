/**
 * The backup manifest: what an archive holds (format and schema version, app version, time, key
 * fingerprint, per-table row counts and checksums) and the canonical form of table rows that the
 * checksums are computed over, so an export from SQLite and one from PostgreSQL hash the same.
 */
import { deriveKey } from '../crypto/envelope.js'
import type { SqlRow } from '../server/store/index.js'

/** Identifies a vault backup archive. */
export const archiveFormat = 'vault-backup'
/**
 * The container format version this binary writes and reads. Version 2 carries an HMAC over the
 * whole archive; version 1 (unauthenticated) is refused.
 */
export const archiveFormatVersion = 2
/** Rows per chunk line in the archive, so no single line grows with the database. */
export const rowsPerChunk = 500
/** A chunk line is closed once it holds this many bytes (a row is at most ~100 KiB). */
export const chunkBytes = 256 * 1024

/**
 * The key of the archive MAC: HKDF-SHA256 of ENCRYPTION_KEY with its own label, so an archive can only
 * be written (or forged) by someone holding the key, and is checked before anything is touched.
 */
export function archiveMacKey(encryptionKey: Buffer): Buffer {
  return deriveKey(encryptionKey, 'backup-archive-mac-v2')
}

export interface TableSummary {
  rows: number
  /** SHA-256 (hex) of the table's chunk lines, in order, as written. */
  sha256: string
}

export interface BackupManifest {
  format: typeof archiveFormat
  formatVersion: number
  schemaVersion: number
  appVersion: string
  createdAt: string
  /** The engine the snapshot was taken from (`sqlite` or `postgres`); restores go to either. */
  engine: string
  /** Fingerprint of the ENCRYPTION_KEY the data is encrypted under (from the `meta` table). */
  keyFingerprint: string | null
  tables: Record<string, TableSummary>
}

/** A consistent copy of every table, engine-neutral. */
export interface TableSnapshot {
  schemaVersion: number
  engine: string
  tables: Record<string, SqlRow[]>
}

/** One row in canonical shape: keys sorted, numbers as numbers (bigints from an engine included). */
export function canonicalRow(row: SqlRow): SqlRow {
  const canonical: SqlRow = {}
  for (const column of Object.keys(row).sort()) {
    const value = row[column] as unknown
    canonical[column] = typeof value === 'bigint' ? Number(value) : (value as SqlRow[string])
  }
  return canonical
}

/**
 * Rows in a canonical order and shape: keys sorted, numbers as numbers, rows sorted by their JSON.
 * Both engines return the same canonical rows for the same data, whatever their collation.
 */
export function canonicalRows(rows: SqlRow[]): SqlRow[] {
  const keyed = rows.map((row) => {
    const canonical = canonicalRow(row)
    return { key: JSON.stringify(canonical), row: canonical }
  })
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return keyed.map((entry) => entry.row)
}

/** Total rows of a manifest's tables, for progress and summaries. */
export function totalRows(manifest: BackupManifest): number {
  return Object.values(manifest.tables).reduce((sum, table) => sum + table.rows, 0)
}
