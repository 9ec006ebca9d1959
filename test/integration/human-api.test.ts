/**
 * Humans over real HTTP on SQLite and PostgreSQL (issue 19): `vault login --user` in process (the command as oclif runs it)
 * (password on stdin), the cached token used by `vault secrets set/get` through VAULT_USER, the admin
 * API as the init admin (a member created over it is refused admin operations), sign-out, and no
 * password in any output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Login from '../../src/commands/login.js'
import Logout from '../../src/commands/logout.js'
import SecretsGet from '../../src/commands/secrets/get.js'
import SecretsSet from '../../src/commands/secrets/set.js'
import { runCommand } from '../helpers/run-command.js'
import { createDatabase, postgresOrNull } from '../helpers/components.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault } from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const adapters = [
  { adapter: 'sqlite', available: true },
  { adapter: 'postgres', available: postgres !== null },
]
/** The admin password test/helpers/vault-server.ts initialises every test vault with. */
const adminPassword = 'correct horse battery staple'
const memberPassword = 'CANARY-http-member-pw-44d0'
const secretValue = 'CANARY-http-secret-value-9e1'

describe.each(adapters)('humans over HTTP on $adapter', ({ adapter, available }) => {
  let vault: TestVault
  let home: TempHome
  const env = () => ({ ...home.env, VAULT_DOMAIN: vault.url, VAULT_PROJECT_ID: 'demo' })
  const api = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const response = await fetch(`${vault.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const signIn = async (username: string, password: string) => {
    const answer = await api('POST', '/api/v1/auth/signin', undefined, { username, password })
    expect(answer.status).toBe(200)
    return answer.body.access_token as string
  }

  beforeAll(async () => {
    if (!available) return
    vault = await startVaultServer({
      dbUrl: adapter === 'postgres' ? await createDatabase(postgres!) : undefined,
      allowPrivateWebhooks: true,
    })
    home = createTempHome()
  }, 120_000)

  afterAll(async () => {
    await vault?.stop()
    home?.cleanup()
  })

  it.skipIf(!available)(
    'vault login --user caches a token that vault secrets uses through VAULT_USER',
    async () => {
      const login = await runCommand(Login, ['--user', 'admin', '--password-stdin', '--json'], {
        env: env(),
        input: adminPassword,
      })
      expect(login.exitCode, login.stderr).toBe(0)
      expect(JSON.parse(login.stdout)).toMatchObject({ user: 'admin', role: 'admin', store: 'file' })
      expect(login.stdout + login.stderr).not.toContain(adminPassword)
      const asAdmin = { ...env(), VAULT_USER: 'admin' }
      const set = await runCommand(SecretsSet, ['HUMAN_SET', '--env', 'dev'], {
        env: asAdmin,
        input: secretValue,
      })
      expect(set.exitCode, set.stderr).toBe(0)
      const get = await runCommand(SecretsGet, ['HUMAN_SET', '--env', 'dev'], { env: asAdmin })
      expect(get.stdout.trim()).toBe(secretValue)
      const wrong = await runCommand(Login, ['--user', 'admin', '--password-stdin'], {
        env: env(),
        input: 'CANARY-wrong-password-x',
      })
      expect(wrong.exitCode).toBe(4)
      expect(wrong.stdout + wrong.stderr).not.toContain('CANARY-wrong-password-x')
      const logout = await runCommand(Logout, ['--user', 'admin'], { env: env() })
      expect(logout.exitCode, logout.stderr).toBe(0)
      const after = await runCommand(SecretsGet, ['HUMAN_SET', '--env', 'dev'], { env: asAdmin })
      expect(after.exitCode).toBe(3)
      expect(after.stderr).toContain('vault login --user admin')
    },
    120_000,
  )

  it.skipIf(!available)(
    'the admin API: a member is created, signs in and is refused admin operations',
    async () => {
      const admin = await signIn('admin', adminPassword)
      const created = await api('POST', '/api/v1/admin/users', admin, {
        username: 'bob',
        password: memberPassword,
        role: 'member',
      })
      expect(created.status).toBe(201)
      const identity = await api('POST', '/api/v1/admin/projects/demo/identities', admin, {
        name: 'http-ci',
        permissions: 'dev=read',
      })
      expect(identity.status).toBe(201)
      const { clientId, clientSecret } = identity.body.identity as { clientId: string; clientSecret: string }
      // the new identity's secret works at the token endpoint
      expect(await vault.token({ clientId, clientSecret })).toMatch(/\./)
      const hook = await api('POST', '/api/v1/admin/projects/demo/webhooks', admin, {
        url: 'http://127.0.0.1:9/h',
      })
      expect(hook.status).toBe(201)
      const verify = await api('GET', '/api/v1/admin/audit/verify', admin)
      expect(verify.body).toMatchObject({ ok: true, tamperedRows: [] })
      const member = await signIn('bob', memberPassword)
      expect((await api('GET', '/api/v1/admin/projects', member)).status).toBe(200)
      for (const [method, path, body] of [
        ['POST', '/api/v1/admin/projects/demo/identities', { name: 'x', permissions: 'dev=read' }],
        ['POST', `/api/v1/admin/projects/demo/identities/http-ci/rotate-secret`, undefined],
        ['DELETE', '/api/v1/admin/projects/demo/identities/http-ci', undefined],
        ['GET', '/api/v1/admin/audit', undefined],
        [
          'POST',
          '/api/v1/admin/users',
          { username: 'mallory', password: 'long enough password', role: 'admin' },
        ],
        ['DELETE', '/api/v1/admin/users/admin', undefined],
      ] as const) {
        expect((await api(method, path, member, body)).status, `${method} ${path}`).toBe(403)
      }
      // the identity survived the member's attempts, and the member is still a member
      expect(await vault.token({ clientId, clientSecret })).toMatch(/\./)
      const users = await api('GET', '/api/v1/admin/users', admin)
      expect(users.body.users).toEqual([
        expect.objectContaining({ username: 'admin', role: 'admin' }),
        expect.objectContaining({ username: 'bob', role: 'member' }),
      ])
      const removed = await api('DELETE', '/api/v1/admin/users/bob', admin)
      expect(removed.status).toBe(200)
      expect((await api('GET', '/api/v1/admin/projects', member)).status).toBe(401)
      const audit = await api('GET', '/api/v1/admin/audit?limit=1000', admin)
      const text = JSON.stringify(audit.body)
      expect(text).toContain('"actor":"user:admin"')
      for (const canary of [adminPassword, memberPassword, secretValue, clientSecret])
        expect(text).not.toContain(canary)
    },
    120_000,
  )
})
