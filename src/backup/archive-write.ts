/**
 * Writing a backup archive: gzip of JSON lines (the manifest, then chunks of table rows, then a
 * trailer holding the SHA-256 of every byte before it and an HMAC over the same bytes under a key
 * derived from ENCRYPTION_KEY, which authenticates the whole archive). The file is written with mode
 * 600 to a temporary name in the target directory, fsynced, then renamed into place, so a reader never
 * sees a half-written archive and a failure (a full disk) leaves no partial file behind.
 */
import { createHash, createHmac } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { createGzip } from 'node:zlib'
import { replaceFileAtomically } from '../fs/atomic-file.js'
import { tablesInOrder, type SqlRow } from '../server/store/index.js'
import { appVersion } from '../server/version.js'
import {
  archiveFormat,
  archiveFormatVersion,
  archiveMacKey,
  canonicalRows,
  chunkBytes,
  rowsPerChunk,
  type BackupManifest,
  type TableSnapshot,
  type TableSummary,
} from './manifest.js'
import { fileWriteError } from './file-errors.js'

export interface EncodedArchive {
  manifest: BackupManifest
  /** The uncompressed lines, in order, ending with the trailer. */
  lines: Buffer[]
}

/** What authenticates an archive: the key's fingerprint (recorded) and ENCRYPTION_KEY itself. */
export interface ArchiveKey {
  keyFingerprint: string | null
  encryptionKey: Buffer
}

/** Encodes a snapshot as archive lines with its manifest, MAC'd under `key` (pure; no I/O). */
export function encodeArchive(
  snapshot: TableSnapshot,
  key: ArchiveKey,
  createdAt = new Date(),
): EncodedArchive {
  const tables: BackupManifest['tables'] = {}
  const body: Buffer[] = []
  for (const table of tableNames(snapshot)) {
    const encoded = encodeTable(table, snapshot.tables[table] ?? [])
    body.push(...encoded.lines)
    tables[table] = encoded.summary
  }
  const manifest: BackupManifest = {
    format: archiveFormat,
    formatVersion: archiveFormatVersion,
    schemaVersion: snapshot.schemaVersion,
    appVersion: appVersion(),
    createdAt: createdAt.toISOString(),
    engine: snapshot.engine,
    keyFingerprint: key.keyFingerprint,
    tables,
  }
  const lines = [Buffer.from(`${JSON.stringify({ manifest })}\n`), ...body]
  const whole = createHash('sha256')
  const mac = createHmac('sha256', archiveMacKey(key.encryptionKey))
  for (const line of lines) {
    whole.update(line)
    mac.update(line)
  }
  const trailer = { sha256: whole.digest('hex'), hmac: mac.digest('hex') }
  lines.push(Buffer.from(`${JSON.stringify({ trailer })}\n`))
  return { manifest, lines }
}

/** Per-table row counts and checksums of a snapshot (the manifest's `tables`), for content comparisons. */
export function tableSummaries(snapshot: TableSnapshot): BackupManifest['tables'] {
  return Object.fromEntries(
    tableNames(snapshot).map((table) => [table, encodeTable(table, snapshot.tables[table] ?? []).summary]),
  )
}

/**
 * One table's chunk lines (canonical rows, at most `rowsPerChunk` rows or about `chunkBytes` bytes a
 * line) and its manifest summary.
 */
export function encodeTable(table: string, tableRows: SqlRow[]): { lines: Buffer[]; summary: TableSummary } {
  const rows = canonicalRows(tableRows)
  const hash = createHash('sha256')
  const lines: Buffer[] = []
  let chunk: string[] = []
  let size = 0
  const flush = () => {
    const line = Buffer.from(`{"table":${JSON.stringify(table)},"rows":[${chunk.join(',')}]}\n`)
    hash.update(line)
    lines.push(line)
    chunk = []
    size = 0
  }
  for (const row of rows) {
    const json = JSON.stringify(row)
    chunk.push(json)
    size += json.length
    if (chunk.length >= rowsPerChunk || size >= chunkBytes) flush()
  }
  if (chunk.length > 0) flush()
  return { lines, summary: { rows: rows.length, sha256: hash.digest('hex') } }
}

/** Writes encoded lines, gzip-compressed, to `path` atomically with mode 600; returns the size in bytes. */
export async function writeArchiveFile(path: string, lines: Buffer[]): Promise<number> {
  try {
    await replaceFileAtomically(path, (handle) =>
      handle.writeFile(Readable.from(lines).pipe(createGzip({ level: 6 }))),
    )
    return (await stat(path)).size
  } catch (error) {
    throw fileWriteError(error, path)
  }
}

function tableNames(snapshot: TableSnapshot): string[] {
  const known: string[] = tablesInOrder.filter((table) => table in snapshot.tables)
  const extra = Object.keys(snapshot.tables).filter((table) => !known.includes(table))
  return [...known, ...extra]
}
