/**
 * The admin API for humans (issue 19), one call in and one response out through createApiHandler over a
 * real SQLite store: sign-in, every admin operation as an admin (table-driven), the same operations
 * refused to a member (403, audited as denied), machine tokens and missing tokens refused (401), and
 * every change audited with the human as the actor.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiRequest } from '../../../../src/server/http/api.js'
import { createApiHandler } from '../../../../src/server/http/app.js'
import { initialiseVault } from '../../../../src/server/bootstrap.js'
import { createAccount } from '../../../../src/server/humans/accounts.js'
import { createVaultContext, openVault } from '../../../../src/server/server.js'
import type { SqlDriver } from '../../../../src/server/store/index.js'

const adminPassword = 'CANARY-unit-admin-pw-3a9'
const memberPassword = 'CANARY-unit-member-pw-c41'
const dir = mkdtempSync(join(tmpdir(), 'vault-admin-api-'))
let handle: ReturnType<typeof createApiHandler>
let driver: SqlDriver
let machineSecret: { clientId: string; clientSecret: string }
const tokens: Record<'admin' | 'member' | 'machine', string> = { admin: '', member: '', machine: '' }

function call(
  method: string,
  path: string,
  init: { token?: string; body?: unknown; ip?: string } = {},
): ReturnType<typeof handle> {
  const request: ApiRequest = {
    method,
    url: new URL(path, 'http://vault.invalid'),
    headers: {
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    params: {},
    origin: { ip: init.ip ?? '127.0.0.1', requestId: `unit-${method}-${path}` },
    body: async () => Buffer.from(init.body === undefined ? '' : JSON.stringify(init.body)),
  }
  return handle(request)
}

async function signIn(username: string, password: string): Promise<string> {
  const answer = await call('POST', '/api/v1/auth/signin', { body: { username, password } })
  expect(answer.status).toBe(200)
  return (answer.json as { access_token: string }).access_token
}

beforeAll(async () => {
  const opened = await openVault({
    dbUrl: `sqlite://${join(dir, 'vault.db')}`,
    encryptionKey: randomBytes(32),
  })
  driver = opened.driver
  const init = await initialiseVault(driver, opened.keyring, {
    adminUser: 'alice',
    adminPassword,
    project: 'unit',
    environments: ['dev', 'prod'],
  })
  machineSecret = { clientId: init.clientId, clientSecret: init.clientSecret }
  await driver.transaction((tx) =>
    createAccount(tx, opened.keyring.rowMacKey, {
      username: 'bob',
      password: memberPassword,
      role: 'member',
    }),
  )
  handle = createApiHandler(
    createVaultContext({
      driver,
      keyring: opened.keyring,
      config: { jwtSecret: randomBytes(32), allowPrivateWebhooks: true },
    }),
  )
  tokens.admin = await signIn('alice', adminPassword)
  tokens.member = await signIn('bob', memberPassword)
  const machine = await handle({
    method: 'POST',
    url: new URL('/api/v1/auth/token', 'http://vault.invalid'),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    params: {},
    origin: { ip: '127.0.0.1', requestId: 'unit-machine' },
    body: async () =>
      Buffer.from(
        new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: machineSecret.clientId,
          client_secret: machineSecret.clientSecret,
        }).toString(),
      ),
  })
  tokens.machine = (machine.json as { access_token: string }).access_token
}, 60_000)

afterAll(async () => {
  await driver.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every admin operation, in an order where each one's prerequisites exist. */
const operations: {
  name: string
  method: string
  path: string
  body?: unknown
  status: number
  member: number
}[] = [
  { name: 'list projects', method: 'GET', path: '/api/v1/admin/projects', status: 200, member: 200 },
  {
    name: 'create a project',
    method: 'POST',
    path: '/api/v1/admin/projects',
    body: { name: 'second', environments: ['dev'] },
    status: 201,
    member: 403,
  },
  {
    name: 'list environments',
    method: 'GET',
    path: '/api/v1/admin/projects/unit/environments',
    status: 200,
    member: 200,
  },
  {
    name: 'create an environment',
    method: 'POST',
    path: '/api/v1/admin/projects/unit/environments',
    body: { slug: 'qa' },
    status: 201,
    member: 403,
  },
  {
    name: 'create an identity',
    method: 'POST',
    path: '/api/v1/admin/projects/unit/identities',
    body: { name: 'ci', permissions: 'dev=read' },
    status: 201,
    member: 403,
  },
  {
    name: 'list identities',
    method: 'GET',
    path: '/api/v1/admin/projects/unit/identities',
    status: 200,
    member: 403,
  },
  {
    name: 'rotate a secret',
    method: 'POST',
    path: '/api/v1/admin/projects/unit/identities/ci/rotate-secret',
    status: 200,
    member: 403,
  },
  {
    name: 'set the OIDC trust of an identity',
    method: 'PUT',
    path: '/api/v1/admin/projects/unit/identities/ci/oidc',
    body: {
      issuer: 'https://token.actions.githubusercontent.com',
      audience: 'https://vault.test',
      subject: 'repo:acme/stack:ref:refs/heads/*',
      claims: ['repository=acme/stack'],
    },
    status: 200,
    member: 403,
  },
  {
    name: 'remove the OIDC trust of an identity',
    method: 'DELETE',
    path: '/api/v1/admin/projects/unit/identities/ci/oidc',
    status: 200,
    member: 403,
  },
  {
    name: 'revoke an identity',
    method: 'DELETE',
    path: '/api/v1/admin/projects/unit/identities/ci',
    status: 200,
    member: 403,
  },
  {
    name: 'create a webhook',
    method: 'POST',
    path: '/api/v1/admin/projects/unit/webhooks',
    body: { url: 'http://127.0.0.1:9/hook' },
    status: 201,
    member: 403,
  },
  {
    name: 'list webhooks',
    method: 'GET',
    path: '/api/v1/admin/projects/unit/webhooks',
    status: 200,
    member: 403,
  },
  {
    name: 'list the audit log',
    method: 'GET',
    path: '/api/v1/admin/audit?limit=5',
    status: 200,
    member: 403,
  },
  {
    name: 'verify the audit log',
    method: 'GET',
    path: '/api/v1/admin/audit/verify',
    status: 200,
    member: 403,
  },
  {
    name: 'create a user',
    method: 'POST',
    path: '/api/v1/admin/users',
    body: { username: 'carol', password: 'CANARY-carol-pw-long-1', role: 'member' },
    status: 201,
    member: 403,
  },
  { name: 'list users', method: 'GET', path: '/api/v1/admin/users', status: 200, member: 403 },
  {
    name: "change another's password",
    method: 'PUT',
    path: '/api/v1/admin/users/carol/password',
    body: { password: 'CANARY-carol-pw-long-2' },
    status: 200,
    member: 403,
  },
  { name: 'remove a user', method: 'DELETE', path: '/api/v1/admin/users/carol', status: 200, member: 403 },
]

describe('the admin API', () => {
  it.each(operations)('a member may not $name unless allowed (expects $member)', async (operation) => {
    const answer = await call(operation.method, operation.path, {
      token: tokens.member,
      body: operation.body,
    })
    expect(answer.status).toBe(operation.member)
    if (operation.member === 403) expect(answer.json).toMatchObject({ error: { code: 'forbidden' } })
  })

  it.each(operations)('an admin may $name ($status)', async (operation) => {
    const answer = await call(operation.method, operation.path, { token: tokens.admin, body: operation.body })
    expect(answer.status, JSON.stringify(answer.json)).toBe(operation.status)
  })

  it.each(operations)('without a token, or with a machine token, $name is a 401', async (operation) => {
    for (const token of [undefined, tokens.machine, 'not-a-token']) {
      const answer = await call(operation.method, operation.path, { token, body: operation.body })
      expect(answer.status).toBe(401)
    }
  })

  it.each([
    [
      'an http issuer that is not loopback',
      { issuer: 'http://issuer.example', audience: 'a', subject: 's:x' },
    ],
    ['a subject matching everything', { issuer: 'https://i.example', audience: 'a', subject: '*:*' }],
    [
      'claims that are not a list',
      { issuer: 'https://i.example', audience: 'a', subject: 's:x', claims: { a: 'b' } },
    ],
    [
      'a claim that is not a string',
      { issuer: 'https://i.example', audience: 'a', subject: 's:x', claims: [1] },
    ],
    [
      'fields only on the prototype',
      JSON.parse('{"__proto__": {"issuer": "https://i.example", "audience": "a", "subject": "s:x"}}'),
    ],
    ['an issuer that is not a string', { issuer: ['https://i.example'], audience: 'a', subject: 's:x' }],
  ])('refuses an OIDC trust with %s (400), leaving the identity as it was', async (_label, body) => {
    await call('POST', '/api/v1/admin/projects/unit/identities', {
      token: tokens.admin,
      body: { name: 'oidc-hostile', permissions: 'dev=read' },
    })
    const answer = await call('PUT', '/api/v1/admin/projects/unit/identities/oidc-hostile/oidc', {
      token: tokens.admin,
      body,
    })
    expect(answer.status, JSON.stringify(answer.json)).toBe(400)
    const [row] = await driver.transaction((tx) =>
      tx.all(`SELECT oidc_trust FROM identities WHERE name = ?`, ['oidc-hostile']),
    )
    expect(row!.oidc_trust).toBeNull()
  })

  it('shows a new identity secret once and the rotated one once; lists hold no secrets', async () => {
    const created = await call('POST', '/api/v1/admin/projects/unit/identities', {
      token: tokens.admin,
      body: { name: 'deployer', permissions: '*=read,write' },
    })
    const secret = (created.json as { identity: { clientSecret: string } }).identity.clientSecret
    expect(secret).toMatch(/.{20,}/)
    const listed = await call('GET', '/api/v1/admin/projects/unit/identities', { token: tokens.admin })
    expect(JSON.stringify(listed.json)).not.toContain(secret)
    expect(JSON.stringify(listed.json)).toContain('deployer')
    const users = await call('GET', '/api/v1/admin/users', { token: tokens.admin })
    expect(JSON.stringify(users.json)).not.toMatch(/argon2|CANARY/)
    expect((users.json as { users: { username: string }[] }).users.map((user) => user.username)).toEqual([
      'alice',
      'bob',
    ])
  })

  it('audits every change with the human as the actor, and a member refused as denied', async () => {
    const audit = await call('GET', '/api/v1/admin/audit?limit=1000', { token: tokens.admin })
    const events = (audit.json as { events: { actor: string; action: string; result: string }[] }).events
    const byAlice = events.filter((event) => event.actor === 'user:alice' && event.result === 'ok')
    for (const action of [
      'auth.signin',
      'project.create',
      'environment.create',
      'identity.create',
      'identity.rotate-secret',
      'identity.revoke',
      'webhook.create',
      'user.create',
      'user.password',
      'user.remove',
      'audit.verify',
    ])
      expect(byAlice.map((event) => event.action)).toContain(action)
    const denied = events.filter((event) => event.actor === 'user:bob' && event.result === 'denied')
    expect(denied.map((event) => event.action)).toContain('identity.create')
    expect(JSON.stringify(events)).not.toContain('CANARY')
  })

  it('a member changes its own password, which ends its token', async () => {
    const member = await signIn('bob', memberPassword)
    const changed = await call('PUT', '/api/v1/admin/users/bob/password', {
      token: member,
      body: { password: 'CANARY-bob-new-password' },
    })
    expect(changed.status).toBe(200)
    expect((await call('GET', '/api/v1/auth/me', { token: member })).status).toBe(401)
    expect((await call('GET', '/api/v1/auth/me', { token: tokens.member })).status).toBe(401)
    const again = await signIn('bob', 'CANARY-bob-new-password')
    expect((await call('GET', '/api/v1/auth/me', { token: again })).json).toMatchObject({
      user: { username: 'bob', role: 'member' },
    })
  })

  it('signs out: the token stops working at once', async () => {
    const token = await signIn('alice', adminPassword)
    expect((await call('GET', '/api/v1/auth/me', { token })).status).toBe(200)
    expect((await call('POST', '/api/v1/auth/signout', { token })).status).toBe(200)
    expect((await call('GET', '/api/v1/admin/users', { token })).status).toBe(401)
  })

  it('a human token works on the secrets API with ?project=, as user:NAME', async () => {
    const member = await signIn('bob', 'CANARY-bob-new-password')
    const path = '/api/v1/secrets/HUMAN_VALUE?project=unit&environment=dev'
    const written = await call('PUT', path, { token: member, body: { value: 'CANARY-human-written' } })
    expect(written.status).toBe(201)
    const read = await call('GET', path, { token: tokens.admin })
    expect(read.json).toMatchObject({ value: 'CANARY-human-written' })
    expect((await call('GET', '/api/v1/secrets?environment=dev', { token: member })).status).toBe(400)
    expect(
      (await call('GET', '/api/v1/secrets?project=nope&environment=dev', { token: member })).status,
    ).toBe(404)
    // the project's audit log needs admin: a member is refused, an admin reads it
    expect((await call('GET', '/api/v1/audit?project=unit', { token: member })).status).toBe(403)
    const audit = await call('GET', '/api/v1/audit?project=unit&limit=1000', { token: tokens.admin })
    const events = (audit.json as { events: { actor: string; action: string }[] }).events
    expect(events).toContainEqual(expect.objectContaining({ actor: 'user:bob', action: 'secret.create' }))
    await call('POST', '/api/v1/auth/signout', { token: member })
    expect((await call('GET', path, { token: member })).status).toBe(401)
  })

  it('maps bad input to 400, unknown things to 404 and conflicts to 409', async () => {
    const cases: [string, string, unknown, number][] = [
      ['POST', '/api/v1/admin/projects/unit/environments', { slug: 'Bad Slug' }, 400],
      ['POST', '/api/v1/admin/projects/unit/environments', { slug: 'dev' }, 409],
      ['GET', '/api/v1/admin/projects/nope/identities', undefined, 404],
      ['DELETE', '/api/v1/admin/users/nobody', undefined, 404],
      ['DELETE', '/api/v1/admin/users/alice', undefined, 409],
      ['POST', '/api/v1/admin/users', { username: 'x\u0007y', password: 'long enough password' }, 400],
      ['POST', '/api/v1/admin/users', { username: 'dave', password: 'short' }, 400],
      [
        'POST',
        '/api/v1/admin/users',
        { username: 'dave', password: 'long enough password', role: 'root' },
        400,
      ],
      ['POST', '/api/v1/admin/users', { username: 'dave', password: 42 }, 400],
      ['GET', '/api/v1/admin/audit?limit=abc', undefined, 400],
    ]
    for (const [method, path, body, status] of cases) {
      const answer = await call(method, path, { token: tokens.admin, body })
      expect(answer.status, `${method} ${path}`).toBe(status)
    }
  })
})
