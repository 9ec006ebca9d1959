/**
 * Reading and checking a backup archive before anything is touched: gzip integrity, the trailer's
 * SHA-256 over everything before it, each table's checksum and row count against the manifest, the
 * format version and the schema version. Any failure is one IntegrityError line; no row is returned
 * from an archive that failed a check.
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { gunzip } from 'node:zlib'
import { promisify } from 'node:util'
import { IntegrityError } from '../errors.js'
import type { SqlRow } from '../server/store/index.js'
import { schemaVersion } from '../server/store/index.js'
import { fileReadError } from './file-errors.js'
import { archiveFormat, archiveFormatVersion, type BackupManifest } from './manifest.js'

const gunzipAsync = promisify(gunzip)

export interface CheckedArchive {
  manifest: BackupManifest
  tables: Record<string, SqlRow[]>
  /** Size of the compressed file in bytes. */
  bytes: number
}

/** Reads `path` and checks it completely; throws an IntegrityError naming the first problem. */
export async function readArchive(path: string): Promise<CheckedArchive> {
  let compressed: Buffer
  try {
    compressed = await readFile(path)
  } catch (error) {
    throw fileReadError(error, path)
  }
  let text: Buffer
  try {
    text = await gunzipAsync(compressed)
  } catch (error) {
    const reason = /unexpected end/i.test((error as Error).message) ? 'truncated' : 'corrupted'
    throw corrupt(path, `it is ${reason} (gzip: ${(error as Error).message})`)
  }
  return { ...decodeArchive(text, path), bytes: compressed.length }
}

/** Decodes and checks the uncompressed archive text (pure; exported for tests). */
export function decodeArchive(text: Buffer, path = 'the archive'): Omit<CheckedArchive, 'bytes'> {
  const lines = splitLines(text)
  if (lines.length < 2) throw corrupt(path, 'it holds no manifest and trailer')
  const trailerLine = lines.at(-1)!
  const trailer = parseLine(trailerLine, path) as { trailer?: { sha256?: unknown } }
  if (typeof trailer.trailer?.sha256 !== 'string') throw corrupt(path, 'its trailer is missing (truncated?)')
  const whole = createHash('sha256')
  for (const line of lines.slice(0, -1)) whole.update(line)
  if (whole.digest('hex') !== trailer.trailer.sha256)
    throw corrupt(path, 'its checksum does not match its content')

  const manifest = checkManifest(parseLine(lines[0]!, path), path)
  const tables: Record<string, SqlRow[]> = {}
  const hashes = new Map<string, ReturnType<typeof createHash>>()
  for (const line of lines.slice(1, -1)) {
    const chunk = parseLine(line, path) as { table?: unknown; rows?: unknown }
    if (typeof chunk.table !== 'string' || !Array.isArray(chunk.rows) || !(chunk.table in manifest.tables)) {
      throw corrupt(path, 'it holds a chunk that its manifest does not describe')
    }
    let hash = hashes.get(chunk.table)
    if (!hash) hashes.set(chunk.table, (hash = createHash('sha256')))
    hash.update(line)
    ;(tables[chunk.table] ??= []).push(...(chunk.rows as SqlRow[]))
  }
  for (const [table, summary] of Object.entries(manifest.tables)) {
    const rows = (tables[table] ??= [])
    const digest = hashes.get(table)?.digest('hex') ?? createHash('sha256').digest('hex')
    if (rows.length !== summary.rows || digest !== summary.sha256) {
      throw corrupt(path, `table ${table} does not match its checksum`)
    }
  }
  return { manifest, tables }
}

function checkManifest(line: unknown, path: string): BackupManifest {
  const manifest = (line as { manifest?: BackupManifest }).manifest
  if (!manifest || manifest.format !== archiveFormat || typeof manifest.tables !== 'object') {
    throw corrupt(path, 'it is not a vault backup archive')
  }
  if (manifest.formatVersion > archiveFormatVersion) {
    throw new IntegrityError(
      `archive ${path} has format version ${manifest.formatVersion}, newer than this vault reads (${archiveFormatVersion})`,
      { hint: 'restore it with the vault version that wrote it (or newer)' },
    )
  }
  if (manifest.schemaVersion > schemaVersion) {
    throw new IntegrityError(
      `archive ${path} comes from schema version ${manifest.schemaVersion}, newer than this vault (${schemaVersion}); nothing was changed`,
      { hint: `upgrade vault to ${manifest.appVersion} or later, then restore` },
    )
  }
  if (manifest.schemaVersion < schemaVersion) {
    throw new IntegrityError(
      `archive ${path} comes from schema version ${manifest.schemaVersion}, older than this vault (${schemaVersion}); nothing was changed`,
      {
        hint: `restore it with vault ${manifest.appVersion}, start that server once, then take a new backup`,
      },
    )
  }
  return manifest
}

function splitLines(text: Buffer): Buffer[] {
  const lines: Buffer[] = []
  let start = 0
  while (start < text.length) {
    const end = text.indexOf(0x0a, start)
    if (end === -1) {
      lines.push(text.subarray(start))
      break
    }
    lines.push(text.subarray(start, end + 1))
    start = end + 1
  }
  return lines
}

function parseLine(line: Buffer, path: string): unknown {
  try {
    return JSON.parse(line.toString('utf8'))
  } catch {
    throw corrupt(path, 'it holds a line that is not valid JSON')
  }
}

function corrupt(path: string, reason: string): IntegrityError {
  return new IntegrityError(`archive ${path} cannot be used: ${reason}; nothing was changed`, {
    hint: 'use another copy of the backup (vault restore --verify FILE checks one)',
  })
}
