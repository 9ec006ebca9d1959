import { describe, expect, it } from 'vitest'
import { defaultArchiveName } from '../../../src/backup/backup.js'
import { parseDbUrl, redactDbUrl } from '../../../src/backup/db-url.js'
import { fileReadError, fileWriteError } from '../../../src/backup/file-errors.js'
import { canonicalRows } from '../../../src/backup/manifest.js'
import { formatBytes } from '../../../src/backup/report.js'
import { listEnvironments } from '../../../src/backup/verify.js'

const errno = (code: string) => Object.assign(new Error(`${code}: raw message`), { code })

describe('backup helpers', () => {
  it.each([
    ['sqlite:///var/lib/vault.db', { engine: 'sqlite', path: '/var/lib/vault.db' }],
    ['/data/vault.db', { engine: 'sqlite', path: '/data/vault.db' }],
    ['postgres://u:p@127.0.0.1/vault', { engine: 'postgres', url: 'postgres://u:p@127.0.0.1/vault' }],
    ['postgresql://127.0.0.1/vault', { engine: 'postgres', url: 'postgresql://127.0.0.1/vault' }],
  ])('parses DB_URL %s', (url, expected) => {
    expect(parseDbUrl(url)).toEqual(expected)
  })

  it('refuses a DB_URL scheme the store does not support', () => {
    expect(() => parseDbUrl('mongodb://db/vault')).toThrow(/not supported/)
  })

  it.each([
    ['postgres://vault:s3cret-pass@127.0.0.1:5432/vault', 'postgres://vault:***@127.0.0.1:5432/vault'],
    ['postgres://vault@127.0.0.1/vault', 'postgres://vault@127.0.0.1/vault'],
    ['sqlite:///data/vault.db', 'sqlite:///data/vault.db'],
  ])('redacts the password of %s', (url, expected) => {
    expect(redactDbUrl(url)).toBe(expected)
  })

  it.each([
    [errno('ENOSPC'), /^no space left on the device while writing \/x; nothing was changed$/, 'ERR_IO'],
    [new Error('database or disk is full'), /^no space left/, 'ERR_IO'],
    [errno('EACCES'), /^cannot write \/x: permission denied$/, 'ERR_USAGE'],
    [errno('ENOENT'), /^cannot write \/x: the directory does not exist$/, 'ERR_NOT_FOUND'],
  ])('turns a write failure into one line (%s)', (error, message, code) => {
    const mapped = fileWriteError(error, '/x')
    expect(mapped.message).toMatch(message)
    expect(mapped.code).toBe(code)
  })

  it.each([
    [errno('ENOENT'), /^archive \/x does not exist$/],
    [errno('EISDIR'), /is a directory/],
  ])('turns a read failure into one line (%s)', (error, message) => {
    expect(fileReadError(error, '/x').message).toMatch(message)
  })

  it('orders rows and columns canonically', () => {
    expect(
      canonicalRows([
        { b: 2, a: 'y' },
        { a: 'x', b: 1 },
      ]).map((row) => Object.keys(row)),
    ).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ])
    expect(canonicalRows([{ a: 'y' }, { a: 'x' }])).toEqual([{ a: 'x' }, { a: 'y' }])
  })

  it('lists secret names and version counts per environment, without values', () => {
    const listing = listEnvironments({
      projects: [{ id: 'p1', name: 'demo' }],
      environments: [
        { project_id: 'p1', slug: 'prod' },
        { project_id: 'p1', slug: 'dev' },
      ],
      secrets: [
        { id: 's1', project_id: 'p1', environment: 'dev', name: 'B', deleted: 0 },
        { id: 's2', project_id: 'p1', environment: 'dev', name: 'A', deleted: 1 },
      ],
      secret_versions: [
        { secret_id: 's1', version: 1, ciphertext: 'v1.x' },
        { secret_id: 's1', version: 2, ciphertext: 'v1.y' },
        { secret_id: 's2', version: 1, ciphertext: null },
      ],
    })
    expect(listing).toEqual([
      {
        project: 'demo',
        environment: 'dev',
        secrets: [
          { name: 'A', versions: 1, deleted: true },
          { name: 'B', versions: 2, deleted: false },
        ],
      },
      { project: 'demo', environment: 'prod', secrets: [] },
    ])
  })

  it.each([
    [512, '512 B'],
    [2048, '2.0 KiB'],
    [3 * 1024 * 1024, '3.0 MiB'],
  ])('formats %d bytes as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text)
  })

  it('names archives by their UTC time without colons', () => {
    expect(defaultArchiveName(new Date('2026-11-22T03:04:05.678Z'))).toBe(
      'vault-backup-2026-11-22T03-04-05Z.jsonl.gz',
    )
  })
})
