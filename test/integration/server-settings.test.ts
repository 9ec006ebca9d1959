/**
 * Issue 21 item 1 for the server: every setting is declared once (src/server/settings.ts). The README's
 * table lists exactly the declared variables, and each documented variable given to the built CLI
 * through the environment alone shows up in `vault server --print-config --json`.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { serverSettings } from '../../src/server/settings.js'
import { runCli } from '../helpers/cli.js'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const table = readme.slice(
  readme.indexOf('<!-- server-settings -->'),
  readme.indexOf('<!-- /server-settings -->'),
)
const documented = [...table.matchAll(/^\| `([A-Z_]+)` \| `--([a-z-]+)` \|/gm)].map((match) => [
  match[1]!,
  match[2]!,
])

async function printConfig(env: Record<string, string>) {
  const result = await runCli(['server', '--print-config', '--json'], { env })
  expect(result.exitCode, result.stderr).toBe(0)
  return { summary: JSON.parse(result.stdout).config as Record<string, unknown>, stderr: result.stderr }
}

describe('server settings, declared once', () => {
  it('documents exactly the declared settings, each with its flag', () => {
    expect(documented.length).toBeGreaterThan(10)
    expect(documented.sort()).toEqual(serverSettings.map((setting) => [setting.env, setting.flag]).sort())
  })

  it('takes every documented variable from the environment alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-settings-'))
    writeFileSync(join(dir, 'cert.pem'), 'not checked here')
    writeFileSync(join(dir, 'key.pem'), 'not checked here')
    const encryptionKey = randomBytes(32)
    const jwtSecret = randomBytes(32)
    const given: Record<string, string> = {
      DB_URL: `sqlite://${join(dir, 'settings.db')}`,
      ENCRYPTION_KEY: encryptionKey.toString('hex'),
      JWT_SECRET: jwtSecret.toString('hex'),
      SITE_URL: 'https://vault.settings.example',
      PUBLIC_VAULT_URL: 'https://public.settings.example',
      SMTP_HOST: 'smtp.settings.example',
      SMTP_PORT: '2525',
      SMTP_FROM: 'vault@settings.example',
      VAULT_HOST: '127.0.0.42',
      VAULT_PORT: '18299',
      VAULT_TLS_CERT: join(dir, 'cert.pem'),
      VAULT_TLS_KEY: join(dir, 'key.pem'),
      VAULT_BEHIND_PROXY: '1',
      VAULT_TRUSTED_PROXIES: '127.0.0.0/8,10.0.0.0/8',
      VAULT_ALLOW_PRIVATE_WEBHOOKS: 'true',
      VAULT_REQUESTS_PER_MINUTE: '77',
      VAULT_CONNECTIONS_PER_SOURCE: '9',
      VAULT_CONNECTIONS_PER_PROXY: '99',
      VAULT_HEADERS_TIMEOUT_MS: '1234',
      VAULT_REQUEST_TIMEOUT_MS: '5678',
    }
    const { summary } = await printConfig(given)
    const { createHash } = await import('node:crypto')
    const fingerprint = (key: Buffer) =>
      `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`
    const seen: Record<string, unknown> = {
      DB_URL: summary.dbUrl,
      ENCRYPTION_KEY: summary.encryptionKey,
      JWT_SECRET: summary.jwtSecret,
      SITE_URL: summary.siteUrl,
      PUBLIC_VAULT_URL: summary.publicVaultUrl,
      SMTP_HOST: (summary.smtp as { host: string }).host,
      SMTP_PORT: String((summary.smtp as { port: number }).port),
      SMTP_FROM: (summary.smtp as { from: string }).from,
      VAULT_HOST: summary.host,
      VAULT_PORT: String(summary.port),
      VAULT_TLS_CERT: summary.tls ? given.VAULT_TLS_CERT : null,
      VAULT_TLS_KEY: summary.tls ? given.VAULT_TLS_KEY : null,
      VAULT_BEHIND_PROXY: summary.behindProxy ? '1' : '0',
      VAULT_TRUSTED_PROXIES: (summary.trustedProxies as string[]).join(','),
      VAULT_ALLOW_PRIVATE_WEBHOOKS: summary.allowPrivateWebhooks ? 'true' : 'false',
      VAULT_REQUESTS_PER_MINUTE: String(summary.requestsPerMinute),
      VAULT_CONNECTIONS_PER_SOURCE: String(summary.connectionsPerSource),
      VAULT_CONNECTIONS_PER_PROXY: String(summary.connectionsPerProxy),
      VAULT_HEADERS_TIMEOUT_MS: String(summary.headersTimeoutMs),
      VAULT_REQUEST_TIMEOUT_MS: String(summary.requestTimeoutMs),
    }
    expect(seen).toEqual({
      ...given,
      ENCRYPTION_KEY: fingerprint(encryptionKey),
      JWT_SECRET: fingerprint(jwtSecret),
    })

    const dev = await printConfig({ VAULT_DEV: 'yes', VAULT_DATA_DIR: join(dir, 'dev-data') })
    expect(dev.summary).toMatchObject({ dev: true, dataDir: join(dir, 'dev-data') })
    const covered = new Set([...Object.keys(given), 'VAULT_DEV', 'VAULT_DATA_DIR'])
    expect(documented.map(([env]) => env).filter((env) => !covered.has(env!))).toEqual([])
  })

  it('warns that --dev --host 0.0.0.0 serves plain HTTP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-settings-dev-'))
    const { stderr } = await printConfig({ VAULT_DEV: '1', VAULT_DATA_DIR: dir, VAULT_HOST: '0.0.0.0' })
    expect(stderr).toMatch(/warning: --dev serves plain HTTP on 0\.0\.0\.0/)
  })

  it('refuses a setting with a bad value from the environment, naming the variable', async () => {
    const result = await runCli(['server', '--print-config'], {
      env: {
        VAULT_DEV: '1',
        VAULT_DATA_DIR: mkdtempSync(join(tmpdir(), 'vault-settings-bad-')),
        SMTP_PORT: 'abc',
      },
    })
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).toContain('SMTP_PORT')
  })
})
