/**
 * Reading and checking a backup archive before anything is touched, in two streamed passes. The first
 * authenticates: it inflates under caps (inflate-lines.ts), parses only the manifest (format, key
 * fingerprint) and checks the trailer's SHA-256 and HMAC (key derived from ENCRYPTION_KEY) over every
 * byte, so a forged or edited archive is refused without one of its rows being parsed. The second
 * decodes the rows, checks each table against the manifest and the MAC again (the file must not have
 * changed in between). Any failure is one IntegrityError line; no row leaves an archive that failed.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { keyFingerprint } from '../crypto/envelope.js'
import { IntegrityError } from '../errors.js'
import type { SqlRow } from '../server/store/index.js'
import { schemaVersion } from '../server/store/index.js'
import { fileReadError } from './file-errors.js'
import { defaultInflateLimits, inflateLines, unusableArchive, type InflateLimits } from './inflate-lines.js'
import { archiveFormat, archiveFormatVersion, archiveMacKey, type BackupManifest } from './manifest.js'

export interface CheckedArchive {
  manifest: BackupManifest
  tables: Record<string, SqlRow[]>
  /** Size of the compressed file in bytes. */
  bytes: number
}

interface Authenticated {
  manifest: BackupManifest
  mac: string
}

/** Reads `path` and checks it completely under ENCRYPTION_KEY `kek`; throws an IntegrityError naming the first problem. */
export async function readArchive(
  path: string,
  kek: Buffer,
  limits: InflateLimits = defaultInflateLimits,
): Promise<CheckedArchive> {
  let bytes: number
  try {
    bytes = (await stat(path)).size
  } catch (error) {
    throw fileReadError(error, path)
  }
  const authenticated = await authenticateArchive(path, kek, limits)
  return { ...(await decodeRows(path, authenticated, kek, limits)), bytes }
}

/** Pass one: the manifest, the key fingerprint, the checksum and the MAC; no row is parsed. */
export async function authenticateArchive(
  path: string,
  kek: Buffer,
  limits: InflateLimits = defaultInflateLimits,
): Promise<Authenticated> {
  let manifest: BackupManifest | undefined
  let pending: Buffer | undefined
  const whole = createHash('sha256')
  const mac = createHmac('sha256', archiveMacKey(kek))
  try {
    for await (const line of inflateLines(path, limits)) {
      if (pending) {
        whole.update(pending)
        mac.update(pending)
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
  if (whole.digest('hex') !== trailer.sha256)
    throw unusableArchive(path, 'its checksum does not match its content')
  const actual = mac.digest('hex')
  if (!sameHex(actual, trailer.hmac)) {
    throw unusableArchive(
      path,
      'it fails its MAC: it was not written by vault backup under this ENCRYPTION_KEY (forged or edited)',
    )
  }
  checkSchema(manifest, path)
  return { manifest, mac: actual }
}

/** Pass two: the rows, each table against the manifest, and the MAC again over what was decoded. */
async function decodeRows(
  path: string,
  authenticated: Authenticated,
  kek: Buffer,
  limits: InflateLimits,
): Promise<Omit<CheckedArchive, 'bytes'>> {
  const { manifest } = authenticated
  const tables: Record<string, SqlRow[]> = {}
  const hashes = new Map<string, ReturnType<typeof createHash>>()
  const mac = createHmac('sha256', archiveMacKey(kek))
  let pending: Buffer | undefined
  let first = true
  try {
    for await (const line of inflateLines(path, limits)) {
      if (pending) {
        mac.update(pending)
        if (!first) decodeChunk(pending)
        first = false
      }
      pending = line
    }
  } catch (error) {
    throw readFailure(error, path)
  }
  if (!sameHex(mac.digest('hex'), authenticated.mac)) {
    throw unusableArchive(path, 'it changed while it was being read')
  }
  for (const [table, summary] of Object.entries(manifest.tables)) {
    const rows = (tables[table] ??= [])
    const digest = hashes.get(table)?.digest('hex') ?? createHash('sha256').digest('hex')
    if (rows.length !== summary.rows || digest !== summary.sha256) {
      throw unusableArchive(path, `table ${table} does not match its checksum`)
    }
  }
  return { manifest, tables }

  function decodeChunk(line: Buffer) {
    const chunk = parseLine(line, path) as { table?: unknown; rows?: unknown }
    if (
      typeof chunk.table !== 'string' ||
      !Array.isArray(chunk.rows) ||
      !Object.hasOwn(manifest.tables, chunk.table)
    ) {
      throw unusableArchive(path, 'it holds a chunk that its manifest does not describe')
    }
    let hash = hashes.get(chunk.table)
    if (!hash) hashes.set(chunk.table, (hash = createHash('sha256')))
    hash.update(line)
    const rows = (tables[chunk.table] ??= [])
    for (const row of chunk.rows as SqlRow[]) rows.push(row)
  }
}

function checkFormat(line: unknown, path: string): BackupManifest {
  const manifest = (line as { manifest?: BackupManifest }).manifest
  if (
    !manifest ||
    manifest.format !== archiveFormat ||
    typeof manifest.tables !== 'object' ||
    !manifest.tables
  ) {
    throw unusableArchive(path, 'it is not a vault backup archive')
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

function parseLine(line: Buffer, path: string): unknown {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'))
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
