/**
 * `vault restore FILE`: the checks that need no database first (the archive's MAC and checksums,
 * format and schema version, key fingerprint), then the engine's restore into a temporary place (a
 * new SQLite file, or an uncommitted PostgreSQL transaction) where the archive is streamed in, the data
 * read back is compared with the archive, every secret version is trial-decrypted and the integrity
 * check run (audit chain and head, row MACs, an audit event per version); only then the swap.
 */
import type { SqlDriver, SqlExecutor } from '../server/store/index.js'
import { authenticateArchive } from './archive-read.js'
import { checkStoreData, readEncryptionKey, type DataCheckSummary } from './data-checks.js'
import { parseDbUrl, redactDbUrl } from './db-url.js'
import { inflateLimitsOf } from './inflate-lines.js'
import { checkSameContent, loadArchive, type LoadedDigests } from './load-archive.js'
import type { BackupManifest } from './manifest.js'
import { restoreIntoPostgres } from './restore-postgres.js'
import { restoreIntoSqlite } from './restore-sqlite.js'
import {
  checkSameVault,
  keepLiveRevocations,
  readLiveState,
  type KeptRevocations,
  type LiveState,
} from './live-state.js'
import { loadKeyring } from '../server/keys/keyring.js'
import type { RestoreHooks } from './restore-types.js'

export interface RestoreOptions {
  file: string
  dbUrl: string
  /** The configured ENCRYPTION_KEY (hex); required. */
  encryptionKey: string | undefined
  step?: (message: string) => void
  progress?: (table: string, rows: number) => void
  /** The cap on the archive's uncompressed size, in MiB (default 64). */
  maxInflatedMib?: number
  /** The key fingerprint of the other vault the database holds, to replace it (refused otherwise). */
  replaceVault?: string
}

export interface RestoreResult {
  file: string
  engine: 'sqlite' | 'postgres'
  database: string
  manifest: BackupManifest
  checked: DataCheckSummary
  /** Where the previous SQLite database was kept, or null. */
  previous: string | null
  /** The revocations of the replaced database kept in the restored one (null: it held no vault, or another). */
  keptRevocations: KeptRevocations | null
}

/** Checks the archive and the key, then restores it into the database at `dbUrl`. */
export async function restoreArchive(options: RestoreOptions): Promise<RestoreResult> {
  const step = options.step ?? (() => undefined)
  const target = parseDbUrl(options.dbUrl)
  const kek = readEncryptionKey(options.encryptionKey)
  step(`checking the archive ${options.file} (MAC, checksums, format, schema version, key fingerprint)`)
  const archive = await authenticateArchive(options.file, kek, inflateLimitsOf(options.maxInflatedMib))
  let loaded: LoadedDigests | undefined
  let checked: DataCheckSummary | undefined
  let live: LiveState | null = null
  let keptRevocations: KeptRevocations | null = null
  const hooks: RestoreHooks = {
    step,
    inspectLive: async (reader) => {
      const state = await readLiveState(reader)
      const database = redactDbUrl(options.dbUrl)
      const same = checkSameVault(state, archive.manifest.keyFingerprint ?? null, {
        database,
        replaceVault: options.replaceVault,
      })
      if (same) step('reading the revocations of the live database (they are kept)')
      live = same ? state : null
    },
    load: async (tx: SqlExecutor) => {
      loaded = await loadArchive(tx, archive, kek, options.progress)
    },
    verify: async (store: SqlDriver) => {
      await store.transaction((tx) => checkSameContent(tx, loaded!))
      const kept = live
      if (kept) {
        const keyring = await loadKeyring(store, kek)
        keptRevocations = await store.transaction((tx) => keepLiveRevocations(tx, keyring, kept))
      }
      checked = await checkStoreData(store, kek)
    },
  }
  const outcome =
    target.engine === 'sqlite'
      ? await restoreIntoSqlite(target.path, hooks)
      : await restoreIntoPostgres(target.url, hooks)
  return {
    file: options.file,
    engine: target.engine,
    database: redactDbUrl(options.dbUrl),
    manifest: archive.manifest,
    checked: checked!,
    previous: outcome.previous,
    keptRevocations,
  }
}
