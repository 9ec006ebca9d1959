/**
 * `vault server --print-config`: every setting's effective value, keys only as fingerprints, and no
 * database password however the URL carries it. The oracle of where a password sits in a DB_URL is the
 * parser the PostgreSQL driver itself uses (pg-connection-string): userinfo, and any query parameter.
 */
import { createHash } from 'node:crypto'
import { parse } from 'pg-connection-string'
import { describe, expect, it } from 'vitest'
import type { ServerConfig } from '../../../src/server/config.js'
import { configSummary } from '../../../src/server/config-summary.js'

const canary = 'CANARY9f2e'
const key = Buffer.alloc(32, 7)

function config(dbUrl: string): ServerConfig {
  return {
    dbUrl,
    encryptionKey: key,
    jwtSecret: Buffer.alloc(32, 9),
    host: '127.0.0.1',
    port: 8200,
    dev: false,
    behindProxy: false,
  } as unknown as ServerConfig
}

describe('configSummary', () => {
  it.each([
    `postgres://vault:${canary}@db:5432/vault`,
    `postgresql://vault:${encodeURIComponent(`${canary}@:/?#`)}@db/vault`,
    `postgres://vault@db/vault?password=${canary}`,
    `postgres://vault@db/vault?sslmode=require&PASSWORD=${canary}`,
    `postgres://vault@db/vault?sslpassword=${canary}`,
    `postgres://vault:${canary}@db/vault?password=${canary}`,
  ])('shows %s without its password', (dbUrl) => {
    const driverReads = parse(dbUrl) as Record<string, unknown>
    expect(JSON.stringify(driverReads)).toContain(canary) // the driver would use it
    const shown = configSummary(config(dbUrl)).dbUrl!
    expect(shown).not.toContain(canary)
    expect(decodeURIComponent(shown)).not.toContain(canary)
    const stillReads = parse(shown) as Record<string, unknown>
    expect(stillReads.host).toBe(driverReads.host)
    expect(stillReads.database).toBe(driverReads.database)
  })

  it('leaves a URL without a password and a SQLite path as they are', () => {
    expect(configSummary(config('postgres://vault@db/vault?sslmode=require')).dbUrl).toBe(
      'postgres://vault@db/vault?sslmode=require',
    )
    expect(configSummary(config('sqlite:///var/lib/vault/vault.db')).dbUrl).toBe(
      'sqlite:///var/lib/vault/vault.db',
    )
  })

  it('shows keys only as a SHA-256 fingerprint', () => {
    const summary = configSummary(config('sqlite:///x.db'))
    expect(summary.encryptionKey).toBe(
      `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`,
    )
    expect(JSON.stringify(summary)).not.toContain(key.toString('hex'))
    expect(JSON.stringify(summary)).not.toContain(key.toString('base64'))
  })

  it('fills the defaults a script reading --print-config --json expects', () => {
    const summary = configSummary(config('sqlite:///x.db'))
    expect(summary).toMatchObject({ siteUrl: null, smtp: null, tls: false, trustedProxies: [], warnings: [] })
  })
})
