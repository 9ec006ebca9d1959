/**
 * `--copy-to`: the archive copied into another directory, mode 600, checked byte for byte (Node's own
 * SHA-256 of the file is the oracle) and read back as a complete archive under the key; a destination
 * that is not a directory, a wrong expected digest or another key is refused.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { encodeArchive, writeArchiveFile } from '../../../src/backup/archive-write.js'
import { copyArchive, sha256Of } from '../../../src/backup/copy.js'
import { keyFingerprint } from '../../../src/crypto/envelope.js'
import { IntegrityError, NotFoundError } from '../../../src/errors.js'
import { schemaVersion } from '../../../src/server/migrations.js'

const kek = Buffer.alloc(32, 7)
const dir = mkdtempSync(join(tmpdir(), 'backup-copy-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function archive(name: string): Promise<{ path: string; sha256: string }> {
  const path = join(dir, name)
  const data = {
    schemaVersion,
    engine: 'sqlite' as const,
    tables: {
      meta: [{ key: 'kek_fingerprint', value: keyFingerprint(kek) }],
      secrets: [{ id: 's1', name: 'DB_PASSWORD', version: 1 }],
    },
  }
  await writeArchiveFile(
    path,
    encodeArchive(data, { keyFingerprint: keyFingerprint(kek), encryptionKey: kek }).lines,
  )
  return { path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') }
}

describe('copyArchive', () => {
  it('copies the archive, mode 600, and proves the copy is the same and complete', async () => {
    const source = await archive('vault-1.gz')
    const target = join(dir, 'offsite')
    mkdirSync(target)
    const result = await copyArchive(source, target, kek, join(dir, 'vault.db'))
    expect(result.path).toBe(join(target, 'vault-1.gz'))
    expect(readFileSync(result.path).equals(readFileSync(source.path))).toBe(true)
    expect(statSync(result.path).mode & 0o777).toBe(0o600)
    expect(result.sha256).toBe(source.sha256)
    expect(result.sameDeviceAsDatabase).toBe(true)
    expect(await sha256Of(result.path)).toBe(source.sha256)
  })

  it('refuses a destination that is not a directory', async () => {
    const source = await archive('vault-2.gz')
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    await expect(copyArchive(source, file, kek)).rejects.toThrow(NotFoundError)
    await expect(copyArchive(source, join(dir, 'missing'), kek)).rejects.toThrow(/is not a directory/)
  })

  it('refuses a copy whose bytes differ from the digest of the original', async () => {
    const source = await archive('vault-3.gz')
    const target = mkdtempSync(join(dir, 'copy-'))
    await expect(copyArchive({ ...source, sha256: '0'.repeat(64) }, target, kek)).rejects.toThrow(
      IntegrityError,
    )
  })

  it('refuses a copy that does not authenticate under the key', async () => {
    const source = await archive('vault-4.gz')
    const target = mkdtempSync(join(dir, 'copy-'))
    await expect(copyArchive(source, target, Buffer.alloc(32, 8))).rejects.toThrow()
  })
})
