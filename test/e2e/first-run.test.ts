/** A new user's first commands (issue 16): `vault --help` topics, `server init` from a script and without --site-url. */
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

describe('vault --help', () => {
  it('summarises each topic', async () => {
    const { stdout, exitCode } = await runCli(['--help'])
    expect(exitCode).toBe(0)
    const topics = stdout.slice(stdout.indexOf('TOPICS'), stdout.indexOf('COMMANDS'))
    expect(topics).toMatch(/^ {2}secrets +an environment's secrets: get, set, list, import, init/m)
    expect(topics).toMatch(/^ {2}server +the vault server/m)
    expect(topics).not.toMatch(/delete a secret/)
  })
})

describe('vault server init from a script', () => {
  it('names the flags to pass when a value is missing', async () => {
    const result = await runCli(['server', 'init', '--db-url', 'sqlite:///nonexistent/vault.db'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/admin user name is required \(--admin-user\)/)
    expect(result.stderr).toMatch(
      /Hint: from a script: .*--admin-password-stdin --admin-user admin --project NAME --site-url URL/,
    )
  })
})

describe('vault server init without --site-url', () => {
  it('prints a VAULT_DOMAIN line that says it is unknown, next to the credentials', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { randomBytes } = await import('node:crypto')
    const dir = mkdtempSync('/tmp/vault-init-e2e-')
    try {
      const result = await runCli(
        [
          'server',
          'init',
          '--db-url',
          `sqlite://${dir}/vault.db`,
          '--admin-user',
          'admin',
          '--admin-password-stdin',
          '--project',
          'p',
        ],
        { env: { ENCRYPTION_KEY: randomBytes(32).toString('hex') }, input: 'a long admin password' },
      )
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stdout.split('\n')[0]).toBe("VAULT_DOMAIN=<the vault's URL: no --site-url was given>")
      expect(result.stdout).toMatch(/^VAULT_CLIENT_SECRET=\S+$/m)
      expect(result.stderr).toMatch(/never in \.env/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
