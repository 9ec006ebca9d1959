/**
 * Issue 35 item 5: the server's key material under VAULT_ names, from files named by their _FILE
 * twins (systemd's LoadCredential), the earlier names with a deprecation warning.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NotConfiguredError, UsageError } from '../../../src/errors.js'
import { configFromEnvironment, configFromFlags } from '../../../src/server/settings.js'

const key = 'ab'.repeat(32)
let dir: string
let warnings: string[]
const warn = (line: string) => void warnings.push(line)

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vault-settings-unit-'))
  warnings = []
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function keyFile(content: string, mode = 0o600): string {
  const path = join(dir, `key-${Math.random().toString(36).slice(2)}`)
  writeFileSync(path, content)
  chmodSync(path, mode)
  return path
}

describe('server key settings', () => {
  it('reads VAULT_ENCRYPTION_KEY, VAULT_JWT_SECRET and VAULT_DB_URL without a warning', () => {
    const input = configFromEnvironment(
      { VAULT_ENCRYPTION_KEY: key, VAULT_JWT_SECRET: key, VAULT_DB_URL: 'sqlite:///x.db' },
      warn,
    )
    expect(input).toMatchObject({ encryptionKey: key, jwtSecret: key, dbUrl: 'sqlite:///x.db' })
    expect(warnings).toEqual([])
  })

  it('reads each from the file its _FILE twin names, the trailing line break dropped', () => {
    const input = configFromEnvironment(
      {
        VAULT_ENCRYPTION_KEY_FILE: keyFile(`${key}\n`, 0o400),
        VAULT_JWT_SECRET_FILE: keyFile(`${key}\r\n`),
        VAULT_DB_URL_FILE: keyFile('postgres://vault:p%40ss@db/vault\n', 0o640),
      },
      warn,
    )
    expect(input).toMatchObject({
      encryptionKey: key,
      jwtSecret: key,
      dbUrl: 'postgres://vault:p%40ss@db/vault',
    })
    expect(warnings).toEqual([])
  })

  it('still reads the earlier names, with one deprecation line each', () => {
    const input = configFromEnvironment(
      { ENCRYPTION_KEY: key, JWT_SECRET: key, DB_URL: 'sqlite:///x.db' },
      warn,
    )
    expect(input).toMatchObject({ encryptionKey: key, jwtSecret: key, dbUrl: 'sqlite:///x.db' })
    expect(warnings).toEqual([
      'DB_URL is deprecated for the vault server: use VAULT_DB_URL or VAULT_DB_URL_FILE',
      'ENCRYPTION_KEY is deprecated for the vault server: use VAULT_ENCRYPTION_KEY or VAULT_ENCRYPTION_KEY_FILE',
      'JWT_SECRET is deprecated for the vault server: use VAULT_JWT_SECRET or VAULT_JWT_SECRET_FILE',
    ])
  })

  it('prefers the new names over the earlier ones, silently', () => {
    const input = configFromEnvironment({ VAULT_ENCRYPTION_KEY: key, ENCRYPTION_KEY: 'cd'.repeat(32) }, warn)
    expect(input.encryptionKey).toBe(key)
    expect(warnings).toEqual([])
  })

  it('refuses a variable and its _FILE both set (exit 2)', () => {
    expect(() =>
      configFromEnvironment({ VAULT_ENCRYPTION_KEY: key, VAULT_ENCRYPTION_KEY_FILE: keyFile(key) }, warn),
    ).toThrow(UsageError)
  })

  it('a flag given on the command line wins over a _FILE', () => {
    const input = configFromFlags(
      { 'encryption-key': key },
      { VAULT_ENCRYPTION_KEY_FILE: keyFile('cd'.repeat(32)) },
      warn,
    )
    expect(input.encryptionKey).toBe(key)
  })

  it('a flag oclif filled from VAULT_ENCRYPTION_KEY conflicts with VAULT_ENCRYPTION_KEY_FILE', () => {
    const env = { VAULT_ENCRYPTION_KEY: key, VAULT_ENCRYPTION_KEY_FILE: keyFile(key) }
    expect(() => configFromFlags({ 'encryption-key': key }, env, warn)).toThrow(UsageError)
  })

  it.each([
    ['writable by others', 0o602],
    ['writable by its group', 0o620],
  ])('refuses a key file %s, without reading it into the error', (_what, mode) => {
    const path = keyFile('canary-key-material', mode)
    let thrown: unknown
    try {
      configFromEnvironment({ VAULT_ENCRYPTION_KEY_FILE: path }, warn)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(NotConfiguredError)
    expect((thrown as Error).message).toContain('VAULT_ENCRYPTION_KEY_FILE')
    expect(
      JSON.stringify({ message: (thrown as Error).message, hint: (thrown as { hint?: string }).hint }),
    ).not.toContain('canary')
  })

  it('refuses a directory, a FIFO (without blocking), a missing path, an empty and an oversized file', () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', ['-m', '600', fifo])
    const big = keyFile('a'.repeat(64 * 1024 + 1))
    for (const path of [dir, fifo, join(dir, 'missing'), keyFile(''), keyFile('\n'), big]) {
      expect(() => configFromEnvironment({ VAULT_JWT_SECRET_FILE: path }, warn), path).toThrow(
        NotConfiguredError,
      )
    }
  })

  it('follows a link to a regular file (Kubernetes mounts secrets as links)', () => {
    const target = keyFile(key)
    const link = join(dir, 'link')
    execFileSync('ln', ['-s', target, link])
    expect(configFromEnvironment({ VAULT_ENCRYPTION_KEY_FILE: link }, warn).encryptionKey).toBe(key)
  })
})
