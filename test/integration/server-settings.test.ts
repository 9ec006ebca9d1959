/**
 * Issue 21 item 1 for the server: every setting is declared once (src/server/settings.ts). The README's
 * table lists exactly the declared variables, and each documented variable given to `vault server`
 * (in this process, with only PATH and LANG besides) through the environment alone shows up in
 * `vault server --print-config --json`.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { serverSettings } from '../../src/server/settings.js'
import { runCommandLine } from '../helpers/run-command-line.js'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const table = readme.slice(
  readme.indexOf('<!-- server-settings -->'),
  readme.indexOf('<!-- /server-settings -->'),
)
const documented = [...table.matchAll(/^\| `([A-Z_]+)` \| `--([a-z-]+)` \|/gm)].map((match) => [
  match[1]!,
  match[2]!,
])

/** `vault server` in this process, its environment only PATH, LANG and `env` (the settings come from there). */
const server = (args: string[], env: Record<string, string>) =>
  runCommandLine(['server', ...args], { env, clean: true })

async function printConfig(env: Record<string, string>) {
  const result = await server(['--print-config', '--json'], env)
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
      VAULT_DB_URL: `sqlite://${join(dir, 'settings.db')}`,
      VAULT_ENCRYPTION_KEY: encryptionKey.toString('hex'),
      VAULT_JWT_SECRET: jwtSecret.toString('hex'),
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
      VAULT_DB_URL: summary.dbUrl,
      VAULT_ENCRYPTION_KEY: summary.encryptionKey,
      VAULT_JWT_SECRET: summary.jwtSecret,
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
      VAULT_ENCRYPTION_KEY: fingerprint(encryptionKey),
      VAULT_JWT_SECRET: fingerprint(jwtSecret),
    })

    const dev = await printConfig({ VAULT_DEV: 'yes', VAULT_DATA_DIR: join(dir, 'dev-data') })
    expect(dev.summary).toMatchObject({ dev: true, dataDir: join(dir, 'dev-data') })
    const covered = new Set([...Object.keys(given), 'VAULT_DEV', 'VAULT_DATA_DIR'])
    expect(documented.map(([env]) => env).filter((env) => !covered.has(env!))).toEqual([])
  })

  it('takes the keys from root-only files (LoadCredential), and the earlier names with a deprecation line each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-settings-files-'))
    const { chmodSync, writeFileSync: write } = await import('node:fs')
    const keyHex = randomBytes(32).toString('hex')
    for (const name of ['encryption-key', 'jwt-secret']) {
      write(join(dir, name), `${keyHex}\n`)
      chmodSync(join(dir, name), 0o400)
    }
    const dbUrl = `sqlite://${join(dir, 'files.db')}`
    const fromFiles = await printConfig({
      VAULT_DB_URL: dbUrl,
      VAULT_ENCRYPTION_KEY_FILE: join(dir, 'encryption-key'),
      VAULT_JWT_SECRET_FILE: join(dir, 'jwt-secret'),
    })
    const legacy = await printConfig({ DB_URL: dbUrl, ENCRYPTION_KEY: keyHex, JWT_SECRET: keyHex })
    expect(fromFiles.summary).toEqual(legacy.summary)
    expect(fromFiles.stderr).not.toContain('deprecated')
    expect(legacy.stderr.match(/deprecated/g)).toHaveLength(3)
    expect(legacy.stderr).toContain(
      'ENCRYPTION_KEY is deprecated for the vault server: use VAULT_ENCRYPTION_KEY or VAULT_ENCRYPTION_KEY_FILE',
    )
    chmodSync(join(dir, 'jwt-secret'), 0o666)
    const refused = await server(['--print-config'], {
      VAULT_DB_URL: dbUrl,
      VAULT_ENCRYPTION_KEY: keyHex,
      VAULT_JWT_SECRET_FILE: join(dir, 'jwt-secret'),
    })
    expect(refused.exitCode).toBe(3)
    expect(refused.stderr).toContain('VAULT_JWT_SECRET_FILE')
    expect(refused.stderr).not.toContain(keyHex)
  })

  it('warns that --dev --host 0.0.0.0 serves plain HTTP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-settings-dev-'))
    const { stderr } = await printConfig({ VAULT_DEV: '1', VAULT_DATA_DIR: dir, VAULT_HOST: '0.0.0.0' })
    expect(stderr).toMatch(/warning: --dev serves plain HTTP on 0\.0\.0\.0/)
  })

  it('refuses a setting with a bad value from the environment, naming the variable', async () => {
    const result = await server(['--print-config'], {
      VAULT_DEV: '1',
      VAULT_DATA_DIR: mkdtempSync(join(tmpdir(), 'vault-settings-bad-')),
      SMTP_PORT: 'abc',
    })
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).toContain('SMTP_PORT')
  })
})
