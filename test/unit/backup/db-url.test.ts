import { describe, expect, it } from 'vitest'
import { parseDbUrl, redactDbUrl } from '../../../src/backup/db-url.js'

describe('backup helpers: parseDbUrl and redactDbUrl', () => {
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
})
