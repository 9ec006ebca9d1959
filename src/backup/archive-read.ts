/**
 * Reading and checking a backup archive in two streamed passes. The first authenticates before
 * anything is touched: it inflates under caps (inflate-lines.ts), parses only the manifest (format,
 * key fingerprint) and checks the trailer's SHA-256 and HMAC (key derived from ENCRYPTION_KEY) over
 * every byte, so a forged or edited archive is refused without one of its rows being parsed. The
 * second streams the rows, chunk by chunk, checks each table against the manifest and the MAC again
 * (the file must not have changed in between). Any failure is one IntegrityError line. Memory stays
 * bounded whatever the archive's size.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { keyFingerprint } from '../crypto/envelope.js'
import { IntegrityError } from '../errors.js'
import type { SqlRow } from '../server/store/index.js'
import { schemaVersion } from '../server/migrations.js'
import { fileReadError } from './file-errors.js'
import {
  defaultInflateLimits,
  inflateLines,
  lineText,
  unusableArchive,
  type InflateLimits,
  type Line,
} from './inflate-lines.js'
import { archiveFormat, archiveFormatVersion, archiveMacKey, type BackupManifest } from './manifest.js'

export interface CheckedArchive {
  manifest: BackupManifest
  tables: Record<string, SqlRow[]>
  /** Size of the compressed file in bytes. */
  bytes: number
}

/** An archive whose MAC held in the first pass; only such an archive's rows are ever read. */
export interface AuthenticatedArchive {
  path: string
  manifest: BackupManifest
  /** Size of the compressed file in bytes. */
  bytes: number
  /** The MAC of pass one, which pass two must find again. */
  mac: string
  /** The caps pass one read under, which pass two applies again. */
  limits: InflateLimits
}

/** Receives the rows of one chunk line, in archive order (tables in dependency order). */
export type ChunkSink = (table: string, rows: SqlRow[]) => Promise<void> | void

/**
 * Reads `path` completely into memory under ENCRYPTION_KEY `kek` (for small archives and tests; restore
 * and --verify stream with `readArchiveRows`); throws an IntegrityError naming the first problem.
 */
export async function readArchive(
  path: string,
  kek: Buffer,
  limits: InflateLimits = defaultInflateLimits,
): Promise<CheckedArchive> {
  const archive = await authenticateArchive(path, kek, limits)
  const tables: Record<string, SqlRow[]> = {}
  await readArchiveRows(archive, kek, (table, rows) => {
    const target = (tables[table] ??= [])
    for (const row of rows) target.push(row)
  })
  for (const table of Object.keys(archive.manifest.tables)) tables[table] ??= []
  return { manifest: archive.manifest, tables, bytes: archive.bytes }
}

/** Pass one: the manifest, the key fingerprint, the checksum and the MAC; no row is parsed. */
export async function authenticateArchive(
  path: string,
  kek: Buffer,
  limits: InflateLimits = defaultInflateLimits,
): Promise<AuthenticatedArchive> {
  let bytes: number
  try {
    bytes = (await stat(path)).size
  } catch (error) {
    throw fileReadError(error, path)
  }
  let manifest: BackupManifest | undefined
  let pending: Line | undefined
  const whole = createHash('sha256')
  const mac = createHmac('sha256', archiveMacKey(kek))
  try {
    for await (const line of inflateLines(path, limits)) {
      if (pending) {
        for (const piece of pending) {
          whole.update(piece)
          mac.update(piece)
        }
      } else {
        manifest = checkFormat(parseLine(line, path), path)
        checkFingerprint(manifest, kek)
      }
      pending = line
    }
  } catch (error) {
    throw readFailure(error, path)
  }
  if (!manifest || !pending) throw unusableArchive(path, 'it holds no manifest and trailer')
  const trailer = (parseLine(pending, path) as { trailer?: { sha256?: unknown; hmac?: unknown } }).trailer
  if (typeof trailer?.sha256 !== 'string' || typeof trailer.hmac !== 'string') {
    throw unusableArchive(path, 'its trailer is missing (truncated?)')
  }
  if (whole.digest('hex') !== trailer.sha256) {
    throw unusableArchive(path, 'its checksum does not match its content')
  }
  const actual = mac.digest('hex')
  if (!sameHex(actual, trailer.hmac)) {
    throw unusableArchive(
      path,
      'it fails its MAC: it was not written by vault backup under this ENCRYPTION_KEY (forged or edited)',
    )
  }
  checkSchema(manifest, path)
  return { path, manifest, bytes, mac: actual, limits }
}

/**
 * Pass two: streams the rows of an authenticated archive to `sink`, one chunk at a time, checks each
 * table against the manifest and the MAC again (the file must not have changed since pass one). The
 * sink's work must be undone by the caller when this throws (restore loads into a temporary place).
 */
export async function readArchiveRows(
  archive: AuthenticatedArchive,
  kek: Buffer,
  sink: ChunkSink,
): Promise<void> {
  const { manifest, path, limits } = archive
  const counts = new Map<string, { rows: number; hash: ReturnType<typeof createHash> }>()
  const mac = createHmac('sha256', archiveMacKey(kek))
  let pending: Line | undefined
  let first = true
  try {
    for await (const line of inflateLines(path, limits)) {
      if (pending) {
        for (const piece of pending) mac.update(piece)
        if (!first) await decodeChunk(pending)
        first = false
      }
      pending = line
    }
  } catch (error) {
    throw readFailure(error, path)
  }
  if (!sameHex(mac.digest('hex'), archive.mac)) {
    throw unusableArchive(path, 'it changed while it was being read')
  }
  for (const [table, summary] of Object.entries(manifest.tables)) {
    const seen = counts.get(table)
    const digest = (seen?.hash ?? createHash('sha256')).digest('hex')
    if ((seen?.rows ?? 0) !== summary.rows || digest !== summary.sha256) {
      throw unusableArchive(path, `table ${table} does not match its checksum`)
    }
  }

  async function decodeChunk(line: Line) {
    const chunk = parseLine(line, path) as { table?: unknown; rows?: unknown }
    if (
      typeof chunk.table !== 'string' ||
      !Array.isArray(chunk.rows) ||
      !Object.hasOwn(manifest.tables, chunk.table)
    ) {
      throw unusableArchive(path, 'it holds a chunk that its manifest does not describe')
    }
    let seen = counts.get(chunk.table)
    if (!seen) counts.set(chunk.table, (seen = { rows: 0, hash: createHash('sha256') }))
    for (const piece of line) seen.hash.update(piece)
    seen.rows += chunk.rows.length
    await sink(chunk.table, chunk.rows as SqlRow[])
  }
}

function checkFormat(line: unknown, path: string): BackupManifest {
  const manifest = (line as { manifest?: BackupManifest }).manifest
  if (
    !manifest ||
    manifest.format !== archiveFormat ||
    typeof manifest.tables !== 'object' ||
    !manifest.tables ||
    !Number.isInteger(manifest.formatVersion) ||
    !Number.isInteger(manifest.schemaVersion)
  ) {
    throw unusableArchive(path, 'it is not a vault backup archive')
  }
  // The manifest is not authenticated yet: only well-formed strings of it reach a message.
  const appVersion: unknown = manifest.appVersion
  manifest.appVersion =
    typeof appVersion === 'string' && /^[0-9][0-9A-Za-z.+-]{0,31}$/.test(appVersion)
      ? appVersion
      : '(the version that wrote it)'
  const fingerprint: unknown = manifest.keyFingerprint
  if (typeof fingerprint !== 'string' || !/^[0-9a-f]{16}$/.test(fingerprint)) {
    manifest.keyFingerprint = null
  }
  if (manifest.formatVersion > archiveFormatVersion) {
    throw new IntegrityError(
      `archive ${path} has format version ${manifest.formatVersion}, newer than this vault reads (${archiveFormatVersion}); nothing was changed`,
      { hint: 'restore it with the vault version that wrote it (or newer)' },
    )
  }
  if (manifest.formatVersion < archiveFormatVersion) {
    throw new IntegrityError(
      `archive ${path} has format version ${manifest.formatVersion}, which is not authenticated (no MAC); this vault refuses it; nothing was changed`,
      {
        hint: `restore it with vault ${manifest.appVersion} after checking where it came from, start this vault once on it, then take a new backup`,
      },
    )
  }
  return manifest
}

function checkFingerprint(manifest: BackupManifest, kek: Buffer): void {
  const actual = keyFingerprint(kek)
  if (manifest.keyFingerprint !== actual) {
    throw new IntegrityError(
      `ENCRYPTION_KEY does not match this archive (expects fingerprint ${manifest.keyFingerprint ?? 'none'}, got ${actual}); nothing was changed`,
      { hint: 'set ENCRYPTION_KEY to the key the backed-up vault ran with' },
    )
  }
}

function checkSchema(manifest: BackupManifest, path: string): void {
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
}

function parseLine(line: Line, path: string): unknown {
  try {
    const value: unknown = JSON.parse(lineText(line))
    if (typeof value !== 'object' || value === null) throw new Error('not an object')
    return value
  } catch {
    throw unusableArchive(path, 'it holds a line that is not valid JSON')
  }
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === 32 && right.length === 32 && timingSafeEqual(left, right)
}

function readFailure(error: unknown, path: string): unknown {
  const code = (error as { code?: string }).code
  return code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' ? fileReadError(error, path) : error
}
