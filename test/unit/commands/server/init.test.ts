/**
 * `vault server init` in process on a real SQLite file (moved from the spawned
 * test/integration/server-admin.test.ts): the --json shape, the credentials file (mode 600) and a
 * second init refused (exit 6); from a script and without --site-url (moved from test/e2e/first-run.test.ts).
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import ServerInit from '../../../../src/commands/server/init.js'
import { runCommand } from '../../../helpers/run-command.js'
import { emptyAdminStore } from '../../../helpers/admin-store.js'

const store = emptyAdminStore()
afterAll(() => store.cleanup())
const { dir, env } = store

describe('vault server init', () => {
  it('initialises a vault, writes the stack credentials with mode 600 and prints the secret nowhere', async () => {
    const init = await runCommand(
      ServerInit,
      [
        '--admin-user',
        'admin',
        '--admin-password-stdin',
        '--project',
        'homelab',
        '--environments',
        'dev,prod,staging',
        '--site-url',
        'http://127.0.0.1:8200',
        '--write-env',
        join(dir, 'stack'),
        '--json',
      ],
      { env, input: 'a long admin password\n' },
    )
    expect(init.exitCode, init.stderr).toBe(0)
    const result = JSON.parse(init.stdout)
    expect(result).toMatchObject({
      projectName: 'homelab',
      identityName: 'homelab-deployment',
      environments: ['dev', 'prod', 'staging'],
    })
    const credentialsFile = join(dir, 'stack', '.vault', 'credentials')
    expect(result.credentialsFile).toBe(credentialsFile)
    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600)
    const clientSecret = /^VAULT_CLIENT_SECRET=(vs_\S+)$/m.exec(readFileSync(credentialsFile, 'utf8'))?.[1]
    expect(clientSecret).toBeDefined()
    expect(result).not.toHaveProperty('clientSecret')
    expect(init.stdout + init.stderr).not.toContain(clientSecret)
    expect(existsSync(join(dir, 'stack', '.env'))).toBe(false)
    expect(readFileSync(join(dir, 'stack', '.gitignore'), 'utf8').split('\n')).toContain('.vault/')
    const again = await runCommand(
      ServerInit,
      ['--admin-user', 'admin', '--admin-password-stdin', '--project', 'homelab'],
      { env, input: 'a long admin password' },
    )
    expect(again.exitCode).toBe(6)
  })

  it.each([
    [
      ['--admin-user', 'admin', '--admin-password-stdin', '--project', 'x'],
      /^Error: no admin password on stdin \(--admin-password-stdin\)$/m,
    ],
    [
      ['--admin-user', 'admin', '--project', 'x'],
      /^Error: no admin password: not on a terminal and no --admin-password-stdin$/m,
    ],
    [['--admin-password-stdin', '--project', 'x'], /^Error: admin user name is required \(--admin-user\)$/m],
  ])('%j with nothing on stdin is a usage error (exit 2) saying what is missing', async (argv, message) => {
    const run = await runCommand(ServerInit, argv, { env, input: '' })
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(message)
  })
})

describe('vault server init from a script', () => {
  it('names the flags to pass when a value is missing', async () => {
    const result = await runCommand(ServerInit, ['--db-url', 'sqlite:///nonexistent/vault.db'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/admin user name is required \(--admin-user\)/)
    expect(result.stderr).toMatch(
      /Hint: from a script: .*--admin-password-stdin --admin-user admin --project NAME --site-url URL/,
    )
  })
})

describe('vault server init without --site-url', () => {
  it('prints a VAULT_DOMAIN line that says it is unknown, next to the credentials', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-init-'))
    try {
      const result = await runCommand(
        ServerInit,
        [
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
