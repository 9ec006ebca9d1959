import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isLoopback, resolveServerConfig, type ServerConfigInput } from '../../../src/server/config.js'

const keys = { encryptionKey: 'ab'.repeat(32), jwtSecret: 'cd'.repeat(32), dbUrl: 'sqlite:///tmp/x.db' }

describe('server configuration', () => {
  it.each<[string, ServerConfigInput, RegExp]>([
    ['a short ENCRYPTION_KEY', { ...keys, encryptionKey: 'ab' }, /ENCRYPTION_KEY must be exactly 64/],
    ['a missing JWT_SECRET', { ...keys, jwtSecret: undefined }, /JWT_SECRET is not set/],
    ['a missing DB_URL', { ...keys, dbUrl: undefined }, /DB_URL is not set/],
    [
      'an http SITE_URL on a public host',
      { ...keys, host: '0.0.0.0', behindProxy: true, siteUrl: 'http://vault.example.com' },
      /SITE_URL must be an https/,
    ],
    [
      'a PUBLIC_VAULT_URL that is no URL',
      { ...keys, publicVaultUrl: 'not a url' },
      /PUBLIC_VAULT_URL is not a URL/,
    ],
    ['plain HTTP on a public address', { ...keys, host: '0.0.0.0' }, /refusing plain HTTP on 0\.0\.0\.0/],
    [
      'a TLS certificate without its key',
      { ...keys, tlsCert: '/x.pem' },
      /--tls-cert and --tls-key go together/,
    ],
    ['a bad SMTP_PORT', { ...keys, smtpHost: 'mail', smtpPort: 'seven' }, /SMTP_PORT must be an integer/],
    [
      'a connection cap of 0',
      { ...keys, connectionsPerSource: 0 },
      /VAULT_CONNECTIONS_PER_SOURCE \/ --connections-per-source must be an integer from 1 to 1000000/,
    ],
    [
      'a fractional proxy cap',
      { ...keys, connectionsPerProxy: 1.5 },
      /VAULT_CONNECTIONS_PER_PROXY .* must be an integer from 1/,
    ],
    ['a NaN headers timeout', { ...keys, headersTimeoutMs: Number('x') }, /VAULT_HEADERS_TIMEOUT_MS/],
    [
      'a request timeout past what node:http takes',
      { ...keys, requestTimeoutMs: 1e17 },
      /VAULT_REQUEST_TIMEOUT_MS \/ --request-timeout-ms must be an integer from 1 to 3600000/,
    ],
    ['an infinite cap', { ...keys, connectionsPerSource: Infinity }, /VAULT_CONNECTIONS_PER_SOURCE/],
    [
      'a headers timeout longer than the request timeout',
      { ...keys, headersTimeoutMs: 5000, requestTimeoutMs: 1000 },
      /VAULT_HEADERS_TIMEOUT_MS must not exceed VAULT_REQUEST_TIMEOUT_MS/,
    ],
  ])('rejects %s, naming the variable', (_label, input, message) => {
    expect(() => resolveServerConfig(input)).toThrow(message)
  })

  it.each<[string, ServerConfigInput]>([
    ['loopback over HTTP', { ...keys, siteUrl: 'http://127.0.0.1:8200' }],
    [
      'behind a proxy on all addresses',
      { ...keys, host: '0.0.0.0', behindProxy: true, siteUrl: 'https://vault.example.com' },
    ],
    ['dev mode on all addresses', { ...keys, host: '0.0.0.0', dev: true, siteUrl: 'http://vault.lan' }],
  ])('accepts %s', (_label, input) => {
    expect(resolveServerConfig(input).dbUrl).toBe(keys.dbUrl)
  })

  it('has connection limits by default, and takes given ones', () => {
    expect(resolveServerConfig(keys).connections).toEqual({
      connectionsPerSource: 64,
      connectionsPerProxy: 1024,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
    })
    expect(
      resolveServerConfig({ ...keys, connectionsPerSource: 3, headersTimeoutMs: 200, requestTimeoutMs: 400 })
        .connections,
    ).toEqual({
      connectionsPerSource: 3,
      connectionsPerProxy: 1024,
      headersTimeoutMs: 200,
      requestTimeoutMs: 400,
    })
  })

  it('generates dev keys into a 0600 file and reuses them', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'vault-config-')), 'data')
    const first = resolveServerConfig({ dev: true, dataDir })
    expect(first.devFiles?.generated).toBe(true)
    expect(statSync(first.devFiles!.keyFile).mode & 0o777).toBe(0o600)
    expect(first.dbUrl).toBe(`sqlite://${join(dataDir, 'vault.db')}`)
    const second = resolveServerConfig({ dev: true, dataDir })
    expect(second.devFiles?.generated).toBe(false)
    expect(second.encryptionKey).toEqual(first.encryptionKey)
  })

  describe('--dev trusts only a data directory, key file and database of this user', () => {
    const root = process.getuid?.() === 0
    const planted = 'ENCRYPTION_KEY=' + 'ee'.repeat(32) + '\nJWT_SECRET=' + 'ff'.repeat(32) + '\n'
    const fresh = () => join(mkdtempSync(join(tmpdir(), 'vault-config-')), 'data')
    const withKeys = (mode: number) => {
      const dataDir = fresh()
      mkdirSync(dataDir, { mode: 0o700 })
      writeFileSync(join(dataDir, 'dev-keys.env'), planted, { mode })
      chmodSync(join(dataDir, 'dev-keys.env'), mode)
      return dataDir
    }

    it.each<[string, () => string, RegExp]>([
      [
        'a data directory others can write into',
        () => {
          const dataDir = fresh()
          mkdirSync(dataDir)
          chmodSync(dataDir, 0o777)
          return dataDir
        },
        /the dev data directory .* can be written by other users \(mode 777\)/,
      ],
      [
        'a key file others can read (mode 644)',
        () => withKeys(0o644),
        /the dev keys .* can be read by other users/,
      ],
      ['a key file others can write (mode 666)', () => withKeys(0o666), /the dev keys .* can be written/],
      [
        'a key file that is a symlink',
        () => {
          const dataDir = fresh()
          mkdirSync(dataDir, { mode: 0o700 })
          const elsewhere = join(dataDir, '..', 'elsewhere.env')
          writeFileSync(elsewhere, planted, { mode: 0o600 })
          symlinkSync(elsewhere, join(dataDir, 'dev-keys.env'))
          return dataDir
        },
        /the dev keys .* is a symlink or not a regular file/,
      ],
      [
        'a database others can write',
        () => {
          const dataDir = withKeys(0o600)
          writeFileSync(join(dataDir, 'vault.db'), '')
          chmodSync(join(dataDir, 'vault.db'), 0o666)
          return dataDir
        },
        /the dev database .* can be written by other users/,
      ],
    ])('refuses %s', (_label, make, message) => {
      const dataDir = make()
      expect(() => resolveServerConfig({ dev: true, dataDir })).toThrow(message)
    })

    it.skipIf(!root).each<[string, (dataDir: string) => void, RegExp]>([
      [
        'a data directory of another user',
        (dataDir) => chownSync(dataDir, 65534, 65534),
        /data directory .* uid 65534/,
      ],
      [
        'a key file of another user (mode 600)',
        (dataDir) => chownSync(join(dataDir, 'dev-keys.env'), 65534, 65534),
        /the dev keys .* belongs to uid 65534/,
      ],
      [
        'a database of another user',
        (dataDir) => {
          writeFileSync(join(dataDir, 'vault.db'), '')
          chownSync(join(dataDir, 'vault.db'), 65534, 65534)
        },
        /the dev database .* belongs to uid 65534/,
      ],
      [
        'a write-ahead log of another user',
        (dataDir) => {
          writeFileSync(join(dataDir, 'vault.db-wal'), '')
          chownSync(join(dataDir, 'vault.db-wal'), 65534, 65534)
        },
        /the dev database .*vault\.db-wal: it belongs to uid 65534/,
      ],
    ])('refuses %s (planted as root, chown 65534)', (_label, plant, message) => {
      const dataDir = withKeys(0o600)
      plant(dataDir)
      expect(() => resolveServerConfig({ dev: true, dataDir })).toThrow(message)
    })

    it('takes a data directory and database of its own that others could only read, tightened', () => {
      const dataDir = withKeys(0o600)
      chmodSync(dataDir, 0o755)
      writeFileSync(join(dataDir, 'vault.db'), '', { mode: 0o644 })
      chmodSync(join(dataDir, 'vault.db'), 0o644)
      const config = resolveServerConfig({ dev: true, dataDir })
      expect(config.encryptionKey.toString('hex')).toBe('ee'.repeat(32))
      expect(statSync(dataDir).mode & 0o777).toBe(0o700)
      expect(statSync(join(dataDir, 'vault.db')).mode & 0o777).toBe(0o600)
      expect(readFileSync(join(dataDir, 'dev-keys.env'), 'utf8')).toBe(planted)
    })
  })

  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['192.168.1.2', false],
  ])('isLoopback(%s) is %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected)
  })
})
