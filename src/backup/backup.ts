/**
 * `vault backup`: a consistent snapshot of the running vault's database, written as a checked,
 * gzip-compressed archive (mode 600, atomic), optionally copied off the host and verified there.
 * The archive holds ciphertexts only: ENCRYPTION_KEY is not in it and must be kept apart; it is needed
 * here all the same, to authenticate the archive (an HMAC under a key derived from it), and must be
 * the key the database runs with.
 */
import { resolve } from 'node:path'
import { encodeArchive, writeArchiveFile } from './archive-write.js'
import { copyArchive, sha256Of, type CopyResult } from './copy.js'
import { keyFingerprint } from '../crypto/envelope.js'
import { IntegrityError } from '../errors.js'
import { readEncryptionKey, recordedFingerprint } from './data-checks.js'
import { parseDbUrl } from './db-url.js'
import { totalRows, type BackupManifest } from './manifest.js'
import { takeSnapshot, type SnapshotProgress } from './snapshot.js'

export interface BackupOptions {
  dbUrl: string
  /** Archive path; default `vault-backup-<time>.jsonl.gz` in the working directory. */
  output?: string
  /** Directories to copy the archive to (each copy is verified). */
  copyTo?: string[]
  /** ENCRYPTION_KEY (hex): must match the database's key fingerprint; the archive MAC is derived from it. */
  encryptionKey: string | undefined
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
  /** The archive's uncompressed size (restore refuses more than its --max-inflated-mib). */
  inflatedBytes: number
}

/** Takes a snapshot of the database at `dbUrl` and writes it as an archive. */
export async function backupDatabase(options: BackupOptions): Promise<BackupResult> {
  const now = options.now ?? new Date()
  const target = parseDbUrl(options.dbUrl)
  const kek = readEncryptionKey(options.encryptionKey)
  const snapshot = await takeSnapshot(options.dbUrl, options.progress)
  const fingerprint = recordedFingerprint(snapshot.tables)
  if (fingerprint !== keyFingerprint(kek)) {
    throw new IntegrityError(
      `ENCRYPTION_KEY does not match this database (expects fingerprint ${fingerprint ?? 'none'}, got ${keyFingerprint(kek)}); no archive was written`,
      { hint: 'set ENCRYPTION_KEY to the key the vault server runs with' },
    )
  }
  const encoded = encodeArchive(snapshot, { keyFingerprint: fingerprint, encryptionKey: kek }, now)
  const path = resolve(options.output ?? defaultArchiveName(now))
  const bytes = await writeArchiveFile(path, encoded.lines)
  const sha256 = await sha256Of(path)
  const copies: CopyResult[] = []
  for (const directory of options.copyTo ?? []) {
    copies.push(
      await copyArchive(
        { path, sha256 },
        directory,
        kek,
        target.engine === 'sqlite' ? target.path : undefined,
      ),
    )
  }
  return {
    path,
    bytes,
    sha256,
    rows: totalRows(encoded.manifest),
    manifest: encoded.manifest,
    copies,
    inflatedBytes: encoded.lines.reduce((sum, line) => sum + line.length, 0),
  }
}

/** The default archive file name for a backup taken at `now`. */
export function defaultArchiveName(now: Date): string {
  return `vault-backup-${now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}.jsonl.gz`
}
