/**
 * `vault restore FILE`: the checks that need no database first (archive checksums, format and schema
 * version, key fingerprint), then the engine's restore into a temporary place (a new SQLite file, or
 * an uncommitted PostgreSQL transaction), where the data read back is compared with the archive,
 * every secret version is trial-decrypted and the audit chain verified; only then the swap.
 */
import { IntegrityError } from '../errors.js'
import { exportTables, type SqlDriver, type SqlRow } from '../server/store/index.js'
import { readArchive, type CheckedArchive } from './archive-read.js'
import { encodeTable } from './archive-write.js'
import { checkKeyMatches, checkStoreData, readEncryptionKey, type DataCheckSummary } from './data-checks.js'
import { parseDbUrl, redactDbUrl } from './db-url.js'
import type { BackupManifest } from './manifest.js'
import { restoreIntoPostgres } from './restore-postgres.js'
import { restoreIntoSqlite } from './restore-sqlite.js'

export interface RestoreOptions {
  file: string
  dbUrl: string
  /** The configured ENCRYPTION_KEY (hex); required. */
  encryptionKey: string | undefined
  step?: (message: string) => void
  progress?: (table: string, rows: number) => void
}

export interface RestoreResult {
  file: string
  engine: 'sqlite' | 'postgres'
  database: string
  manifest: BackupManifest
  checked: DataCheckSummary
  /** Where the previous SQLite database was kept, or null. */
  previous: string | null
}

/** Checks the archive and the key, then restores it into the database at `dbUrl`. */
export async function restoreArchive(options: RestoreOptions): Promise<RestoreResult> {
  const step = options.step ?? (() => undefined)
  const target = parseDbUrl(options.dbUrl)
  const kek = readEncryptionKey(options.encryptionKey)
  step(`checking the archive ${options.file} (MAC, checksums, format, schema version)`)
  const archive = await readArchive(options.file, kek)
  step('checking the key fingerprint')
  checkKeyMatches(archive.manifest, archive.tables, kek)
  let checked: DataCheckSummary | undefined
  const hooks = {
    step,
    progress: options.progress,
    verify: async (store: SqlDriver) => {
      checkSameContent(archive, (await exportTables(store)).tables)
      checked = await checkStoreData(store, kek)
    },
  }
  const outcome =
    target.engine === 'sqlite'
      ? await restoreIntoSqlite(target.path, archive.tables, hooks)
      : await restoreIntoPostgres(target.url, archive.tables, hooks)
  return {
    file: options.file,
    engine: target.engine,
    database: redactDbUrl(options.dbUrl),
    manifest: archive.manifest,
    checked: checked!,
    previous: outcome.previous,
  }
}

function checkSameContent(archive: CheckedArchive, restored: Record<string, SqlRow[]>): void {
  for (const [table, summary] of Object.entries(archive.manifest.tables)) {
    const actual = encodeTable(table, restored[table] ?? []).summary
    if (actual.rows !== summary.rows || actual.sha256 !== summary.sha256) {
      throw new IntegrityError(
        `the restored table ${table} differs from the archive (${actual.rows} rows, expected ${summary.rows}); nothing was changed`,
        { hint: 'check the target database and disk, then restore again' },
      )
    }
  }
}
