/**
 * `vault backup`: a consistent snapshot of the running vault's database, written as a checked,
 * gzip-compressed archive (mode 600, atomic), optionally copied off the host and verified there.
 * The archive holds ciphertexts only: ENCRYPTION_KEY is not in it and must be kept apart.
 */
import { resolve } from 'node:path'
import { encodeArchive, writeArchiveFile } from './archive-write.js'
import { copyArchive, sha256Of, type CopyResult } from './copy.js'
import { keyMatchesRecorded, recordedFingerprint } from './data-checks.js'
import { parseDbUrl } from './db-url.js'
import { totalRows, type BackupManifest } from './manifest.js'
import { takeSnapshot, type SnapshotProgress } from './snapshot.js'

export interface BackupOptions {
  dbUrl: string
  /** Archive path; default `vault-backup-<time>.jsonl.gz` in the working directory. */
  output?: string
  /** Directories to copy the archive to (each copy is verified). */
  copyTo?: string[]
  /** When set, checked against the database's key fingerprint (a mismatch is reported, not fatal). */
  encryptionKey?: string
  progress?: SnapshotProgress
  now?: Date
}

export interface BackupResult {
  path: string
  bytes: number
  sha256: string
  rows: number
  manifest: BackupManifest
  copies: CopyResult[]
  /** Whether the given ENCRYPTION_KEY matches the database (null when none was given). */
  keyMatches: boolean | null
}

/** Takes a snapshot of the database at `dbUrl` and writes it as an archive. */
export async function backupDatabase(options: BackupOptions): Promise<BackupResult> {
  const now = options.now ?? new Date()
  const target = parseDbUrl(options.dbUrl)
  const snapshot = await takeSnapshot(options.dbUrl, options.progress)
  const fingerprint = recordedFingerprint(snapshot.tables)
  const encoded = encodeArchive(snapshot, fingerprint, now)
  const path = resolve(options.output ?? defaultArchiveName(now))
  const bytes = await writeArchiveFile(path, encoded.lines)
  const sha256 = await sha256Of(path)
  const copies: CopyResult[] = []
  for (const directory of options.copyTo ?? []) {
    copies.push(
      await copyArchive(path, sha256, directory, target.engine === 'sqlite' ? target.path : undefined),
    )
  }
  return {
    path,
    bytes,
    sha256,
    rows: totalRows(encoded.manifest),
    manifest: encoded.manifest,
    copies,
    keyMatches: options.encryptionKey ? keyMatchesRecorded(fingerprint, options.encryptionKey) : null,
  }
}

/** The default archive file name for a backup taken at `now`. */
export function defaultArchiveName(now: Date): string {
  return `vault-backup-${now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}.jsonl.gz`
}
