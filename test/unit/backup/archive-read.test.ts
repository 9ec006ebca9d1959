import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { readArchive } from '../../../src/backup/archive-read.js'
import { encodeArchive, writeArchiveFile } from '../../../src/backup/archive-write.js'
import type { TableSnapshot } from '../../../src/backup/manifest.js'
import { IntegrityError } from '../../../src/errors.js'
import { schemaVersion } from '../../../src/server/migrations.js'
import { keyFingerprint } from '../../../src/crypto/envelope.js'

const kek = Buffer.alloc(32, 7)
const archiveKey = { keyFingerprint: keyFingerprint(kek), encryptionKey: kek }

const dir = mkdtempSync(join(tmpdir(), 'vault-archive-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function snapshot(versions = 1200): TableSnapshot {
  return {
    schemaVersion,
    engine: 'sqlite',
    tables: {
      meta: [{ key: 'kek_fingerprint', value: keyFingerprint(kek) }],
      secrets: [{ id: 's1', name: 'DB_PASSWORD', version: versions }],
      secret_versions: Array.from({ length: versions }, (_, i) => ({
        secret_id: 's1',
        version: i + 1,
        ciphertext: `v1.${Buffer.from(`cipher-${i}`).toString('base64')}`,
      })),
    },
  }
}

async function writtenArchive(name: string, data = snapshot()): Promise<string> {
  const path = join(dir, name)
  await writeArchiveFile(path, encodeArchive(data, archiveKey).lines)
  return path
}

describe('backup archive', () => {
  it('round-trips every row, with counts and checksums in the manifest', async () => {
    const path = await writtenArchive('round-trip.gz')
    const archive = await readArchive(path, kek)
    expect(archive.manifest.tables.secret_versions!.rows).toBe(1200)
    expect(archive.manifest.keyFingerprint).toBe(keyFingerprint(kek))
    expect(archive.tables.secret_versions).toHaveLength(1200)
    expect(archive.tables.secrets).toEqual(snapshot().tables.secrets)
  })

  it('is written with mode 600 and leaves no temporary file', async () => {
    const path = await writtenArchive('mode.gz')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([])
  })

  it('hashes the same data identically whatever the row and column order', () => {
    const data = snapshot(3)
    const shuffled: TableSnapshot = {
      ...data,
      tables: {
        ...data.tables,
        secret_versions: [...data.tables.secret_versions!]
          .reverse()
          .map((row) => Object.fromEntries(Object.entries(row).reverse())),
      },
    }
    expect(encodeArchive(shuffled, archiveKey).manifest.tables).toEqual(
      encodeArchive(data, archiveKey).manifest.tables,
    )
  })

  const corruptions: [string, (bytes: Buffer) => Buffer][] = [
    ['a flipped byte in the middle', (bytes) => flip(bytes, Math.floor(bytes.length / 2))],
    ['a flipped byte near the end', (bytes) => flip(bytes, bytes.length - 3)],
    ['a flipped byte near the start of the data', (bytes) => flip(bytes, 20)],
    ['a truncated file', (bytes) => bytes.subarray(0, Math.floor(bytes.length * 0.7))],
    ['a file cut to its header', (bytes) => bytes.subarray(0, 10)],
    ['an empty file', () => Buffer.alloc(0)],
    ['a file that is not gzip', () => Buffer.from('hello')],
  ]
  it.each(corruptions)('refuses %s with one IntegrityError line', async (_name, damage) => {
    const path = await writtenArchive(`damaged-${Math.random()}.gz`)
    writeFileSync(path, damage(readFileSync(path)))
    const error = await readArchive(path, kek).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(IntegrityError)
    expect((error as Error).message).not.toContain('\n')
    expect((error as Error).message).toMatch(/cannot be used|truncated|corrupted/)
  })

  const edits: [string, (text: string) => string][] = [
    [
      'an edited row',
      (text) =>
        text.replace(Buffer.from('cipher-1').toString('base64'), Buffer.from('cipher-X').toString('base64')),
    ],
    [
      'a dropped chunk line',
      (text) =>
        text
          .split('\n')
          .filter((_, i) => i !== 2)
          .join('\n'),
    ],
    ['a missing trailer', (text) => text.split('\n').slice(0, -2).join('\n') + '\n'],
    ['a manifest with another row count', (text) => text.replace('"rows":1200', '"rows":1201')],
  ]
  it.each(edits)('refuses %s even when the gzip layer is intact', async (_name, edit) => {
    const path = await writtenArchive(`edited-${Math.random()}.gz`)
    const text = gunzipSync(readFileSync(path)).toString('utf8')
    const edited = edit(text)
    expect(edited).not.toBe(text)
    writeFileSync(path, gzipSync(edited))
    await expect(readArchive(path, kek)).rejects.toBeInstanceOf(IntegrityError)
  })

  it('refuses an archive from a newer schema, naming both versions', async () => {
    const path = await writtenArchive('newer.gz', { ...snapshot(2), schemaVersion: schemaVersion + 1 })
    await expect(readArchive(path, kek)).rejects.toThrow(
      `schema version ${schemaVersion + 1}, newer than this vault`,
    )
  })

  it('names a missing archive as not found', async () => {
    await expect(readArchive(join(dir, 'absent.gz'), kek)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' })
  })
})

function flip(bytes: Buffer, index: number): Buffer {
  const copy = Buffer.from(bytes)
  copy[index] = copy[index]! ^ 0xff
  return copy
}
