/**
 * The authorisation matrix: every route the server answers (taken from its own route table, checked
 * against openapi.yaml) called by every kind of principal that has no right to it. A route added later
 * and not classified here fails the test. Each refused cell checks the status (401 for no or a bad
 * credential, 403 or 404 for a principal without the right, a console redirect to sign in), that the
 * answer holds no canary value, name or id of data the caller may not see, that the store did not
 * change (read back directly) and that a denial of a valid principal is audited. "Does not exist" and
 * "exists but not yours" must answer alike. PostgreSQL is not run here: the adversarial project of
 * vitest.config.ts has no component set-up (test/integration covers the engines).
 */
import { createHash, randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { apiResources } from '../../../src/server/http/app.js'
import { consoleResources } from '../../../src/server/console/index.js'
import { signInHuman, endSession, type HumanSession } from '../../../src/server/humans/session.js'
import type { SqlValue } from '../../../src/server/store/driver.js'
import { signAccessToken } from '../../../src/server/tokens/tokens.js'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { openFeed } from '../../helpers/event-feed.js'
import { send, type RawAnswer } from './client.js'
import {
  classOf,
  fill,
  routeKeys,
  type Principal,
  type RouteClass,
  type Target,
} from './authorization-routes.js'

const adminPassword = 'correct horse battery staple'
const memberPassword = 'CANARY-matrix-member-pw-77d1'
const canary = {
  prodName: 'CANARY_MATRIX_PROD_KEY',
  prodValue: 'CANARY-matrix-prod-value-3c9e',
  prodOldValue: 'CANARY-matrix-prod-old-value-a41f',
  stagingName: 'CANARY_MATRIX_STAGING_KEY',
  stagingValue: 'CANARY-matrix-staging-value-52b0',
  devName: 'CANARY_MATRIX_DEV_KEY',
  devValue: 'CANARY-matrix-dev-value-0d6a',
  hookUrl: 'http://127.0.0.1:9/CANARY-matrix-hook-e8f2',
  otherValue: 'CANARY-matrix-other-project-value-19bb',
}

let vault: TestVault
const target = {} as Target
const tokens = {} as Record<Principal, string>
const sessions = {} as { admin: HumanSession; member: HumanSession; ended: HumanSession }
/** Strings a refused answer must never hold (values always; names and ids the caller did not send). */
let secretStrings: string[] = []

const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })

async function store(sql: string, params: SqlValue[] = []) {
  return vault.running.context.driver.transaction((tx) => tx.all(sql, params))
}

/** A digest of everything but the audit log, failed logins and session activity. */
async function storeDigest(): Promise<string> {
  const parts = await Promise.all([
    store(`SELECT id, project_id, environment, name, version, deleted FROM secrets ORDER BY id`),
    store(`SELECT secret_id, version, ciphertext FROM secret_versions ORDER BY secret_id, version`),
    store(
      `SELECT id, project_id, name, client_id, secret_hash, permissions, revoked_at, oidc_trust FROM identities ORDER BY id`,
    ),
    store(`SELECT id, project_id, url, disabled_at FROM webhooks ORDER BY id`),
    store(`SELECT id, username, password_hash FROM admins ORDER BY id`),
    store(`SELECT id, name FROM projects ORDER BY id`),
    store(`SELECT project_id, slug, name FROM environments ORDER BY project_id, slug`),
    store(`SELECT jti, revoked_at FROM access_tokens ORDER BY jti`),
    store(`SELECT id, ended_at FROM human_sessions ORDER BY id`),
  ])
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex')
}

async function login(username: string, password: string): Promise<string> {
  const answer = await send(vault, {
    method: 'POST',
    path: '/api/v1/auth/signin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  })
  expect(answer.status, answer.body).toBe(200)
  return (JSON.parse(answer.body) as { access_token: string }).access_token
}

async function api(method: string, path: string, token: string, body?: unknown): Promise<RawAnswer> {
  return send(vault, {
    method,
    path,
    headers: json(token),
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

/** One request, given up after 5 s (an answer that never ends, e.g. a change feed that opened). */
function timedSend(raw: { method: string; path: string; headers: Record<string, string>; body?: string }) {
  return new Promise<RawAnswer>((done, fail) => {
    const outgoing = httpRequest(
      new URL(raw.path, vault.url),
      { method: raw.method, headers: raw.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = []
        const answer = () => ({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        })
        const timer = setTimeout(() => {
          outgoing.destroy()
          done({ ...answer(), status: -1 })
        }, 5000)
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          clearTimeout(timer)
          done(answer())
        })
      },
    )
    outgoing.on('error', fail)
    outgoing.end(raw.body)
  })
}

/** A JWT with the given parts, signed with HS256 under `key`. */
async function forged(
  key: Buffer,
  subject: { identityId: string; projectId: string; jti?: string },
  ttl: number,
) {
  return (await signAccessToken(key, subject, ttl)).token
}

beforeAll(async () => {
  // the feed polls every 50 ms and sends a heartbeat after every poll that found nothing more: the
  // first heartbeat of a stream says it has streamed everything after its Last-Event-ID
  vault = await startVaultServer({
    allowPrivateWebhooks: true,
    timings: { feed: { pollMs: 50, heartbeatMs: 0 } },
  })
  const { context } = vault.running
  const adminHuman = await login('admin', adminPassword)
  tokens.humanAdmin = adminHuman
  expect(
    (
      await api('POST', '/api/v1/admin/users', adminHuman, {
        username: 'mia',
        password: memberPassword,
        role: 'member',
      })
    ).status,
  ).toBe(201)
  tokens.humanMember = await login('mia', memberPassword)

  // project A (demo): canaries in every environment, two versions in prod
  const deployment = await vault.token(vault.deploymentCredentials)
  for (const [name, value, environment] of [
    [canary.prodName, canary.prodOldValue, 'prod'],
    [canary.prodName, canary.prodValue, 'prod'],
    [canary.stagingName, canary.stagingValue, 'staging'],
    [canary.devName, canary.devValue, 'dev'],
  ] as const) {
    const answer = await api('PUT', `/api/v1/secrets/${name}?environment=${environment}`, deployment, {
      value,
    })
    expect(answer.status, answer.body).toBeLessThan(300)
  }
  const devOnly = await vault.createIdentity('matrix-dev-only', { dev: ['read', 'write'] })
  const devAdmin = await vault.createIdentity('matrix-dev-admin', { dev: ['read', 'write', 'admin'] })
  const writeOnly = await vault.createIdentity('matrix-prod-write-only', { prod: ['write'] })
  tokens.devOnly = await vault.token(devOnly)
  tokens.devAdmin = await vault.token(devAdmin)
  tokens.writeOnly = await vault.token(writeOnly)
  const hook = await api('POST', '/api/v1/admin/projects/demo/webhooks', adminHuman, { url: canary.hookUrl })
  expect(hook.status, hook.body).toBe(201)
  const [identityRow] = await store(`SELECT id, client_id FROM identities WHERE name = 'matrix-dev-only'`)

  // project B: its own deployment identity and a secret of its own
  const other = await vault.createProject('matrix-other')
  tokens.otherProject = await vault.token(other.credentials)
  expect(
    (
      await api('PUT', `/api/v1/secrets/OTHER_ONLY?environment=dev`, tokens.otherProject, {
        value: canary.otherValue,
      })
    ).status,
  ).toBe(201)

  Object.assign(target, {
    projectName: 'demo',
    projectId: vault.projectId,
    otherProjectId: other.projectId,
    identityId: String(identityRow!.id),
    identityClientId: String(identityRow!.client_id),
    webhookId: String((JSON.parse(hook.body) as { webhook: { id: string } }).webhook.id),
    canaryNames: { prod: canary.prodName, staging: canary.stagingName, dev: canary.devName },
    identityNames: ['matrix-dev-only', 'matrix-dev-admin', 'matrix-prod-write-only', 'demo-deployment'],
  })

  // bad credentials
  const claims = JSON.parse(Buffer.from(deployment.split('.')[1]!, 'base64url').toString()) as {
    sub: string
    jti: string
  }
  tokens.none = ''
  tokens.malformed = 'not-a-jwt'
  tokens.expired = await forged(
    Buffer.from(vault.jwtSecret, 'hex'),
    { identityId: claims.sub, projectId: vault.projectId },
    -60,
  )
  const sig = deployment.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'
  tokens.wrongSignature = `${deployment.slice(0, -4)}${sig}`
  tokens.foreignKey = await forged(
    randomBytes(32),
    { identityId: claims.sub, projectId: vault.projectId, jti: claims.jti },
    600,
  )
  tokens.algNone = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${deployment.split('.')[1]}.`
  const revoked = await vault.token(vault.deploymentCredentials)
  expect(
    (
      await send(vault, {
        method: 'POST',
        path: '/api/v1/auth/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=${revoked}`,
      })
    ).status,
  ).toBe(200)
  tokens.revoked = revoked
  const ended = await login('mia', memberPassword)
  expect((await api('POST', '/api/v1/auth/signout', ended)).status).toBe(200)
  tokens.endedHuman = ended

  // console sessions (cookies)
  sessions.admin = await signInHuman(context, {
    username: 'admin',
    password: adminPassword,
    clientAddress: '127.0.0.1',
  })
  sessions.member = await signInHuman(context, {
    username: 'mia',
    password: memberPassword,
    clientAddress: '127.0.0.1',
  })
  sessions.ended = await signInHuman(context, {
    username: 'mia',
    password: memberPassword,
    clientAddress: '127.0.0.1',
  })
  await endSession(context, sessions.ended.id)
  target.sessions = sessions

  secretStrings = [
    canary.prodValue,
    canary.prodOldValue,
    canary.stagingValue,
    canary.devValue,
    canary.otherValue,
    canary.hookUrl,
    'CANARY-matrix-hook',
    memberPassword,
    adminPassword,
    devOnly.clientSecret,
  ]
}, 120_000)
afterAll(() => vault?.stop())

describe('the route table', () => {
  it('every route the server answers is in openapi.yaml or the console, and classified here', async () => {
    const { context } = vault.running
    const api = routeKeys(apiResources(context))
    const consoleRoutes = routeKeys(consoleResources(context))
    const document = parse(readFileSync(resolve(import.meta.dirname, '../../../openapi.yaml'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>
    }
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    )
    expect(new Set(api)).toEqual(new Set(documented))
    const unclassified = [...api, ...consoleRoutes].filter((key) => classOf(key) === undefined)
    expect(unclassified).toEqual([])
  })
})

/** Principals with no valid credential for the API. */
const badCredentials: Principal[] = [
  'none',
  'malformed',
  'expired',
  'wrongSignature',
  'foreignKey',
  'algNone',
  'revoked',
  'endedHuman',
]

/** What each principal may get on each class of route: a set of refusals, or 'allowed' (not attacked). */
function expectation(principal: Principal, routeClass: RouteClass): number[] | 'allowed' | 'leak-only' {
  if (routeClass === 'public' || routeClass === 'console-public') return 'leak-only'
  if (routeClass === 'console' || routeClass === 'console-admin') {
    if (principal !== 'humanMember') return [303]
    return routeClass === 'console' ? 'allowed' : [403]
  }
  if (badCredentials.includes(principal)) return [401]
  const machine = ['otherProject', 'devOnly', 'devAdmin', 'writeOnly'].includes(principal)
  switch (routeClass) {
    case 'own':
      return 'leak-only'
    case 'secrets':
      return principal === 'humanMember' ? 'allowed' : [403, 404]
    case 'secrets-write':
      return principal === 'humanMember' ? 'allowed' : [403, 404]
    case 'project-admin':
      return principal === 'devAdmin' ? 'leak-only' : [403]
    case 'human':
      return machine ? [401, 403] : 'allowed'
    case 'human-admin':
      return machine ? [401, 403] : [403]
  }
  return [403]
}

const principals: Principal[] = [
  ...badCredentials,
  'otherProject',
  'devOnly',
  'devAdmin',
  'writeOnly',
  'humanMember',
]

describe('every route x every principal without the right', () => {
  const cells: { key: string; principal: Principal }[] = []
  beforeAll(() => {
    for (const key of [
      ...routeKeys(apiResources(vault.running.context)),
      ...routeKeys(consoleResources(vault.running.context)),
    ])
      for (const principal of principals) cells.push({ key, principal })
  })

  it('refuses, leaks nothing, changes nothing and audits the denial', async () => {
    const failures: string[] = []
    let attacked = 0
    for (const { key, principal } of cells) {
      const routeClass = classOf(key)!
      const expected = expectation(principal, routeClass)
      if (expected === 'allowed') continue
      for (const variant of fill(key, target, principal)) {
        attacked++
        const before = await storeDigest()
        const headers: Record<string, string> = { 'content-type': 'application/json', ...variant.headers }
        if (tokens[principal]) headers.authorization = `Bearer ${tokens[principal]}`
        const answer = await timedSend({
          method: variant.method,
          path: variant.path,
          headers,
          body: variant.body,
        })
        const label = `${principal} ${variant.method} ${variant.path}`
        const after = await storeDigest()
        if (answer.status >= 500) failures.push(`${label}: ${answer.status} ${answer.body.slice(0, 200)}`)
        const sent = `${variant.path} ${variant.body ?? ''}`
        const leaked = [...secretStrings, ...variant.hidden].filter(
          (text) =>
            !sent.includes(text) &&
            (answer.body.includes(text) || JSON.stringify(answer.headers).includes(text)),
        )
        if (leaked.length > 0) failures.push(`${label}: answer holds ${leaked.join(', ')}`)
        if (expected === 'leak-only' || variant.own) continue
        if (!expected.includes(answer.status))
          failures.push(
            `${label}: ${answer.status} (expected ${expected.join('/')}) ${answer.body.slice(0, 160)}`,
          )
        if (expected[0] === 303 && answer.status === 303 && answer.headers.location !== '/console/sign-in')
          failures.push(`${label}: redirected to ${String(answer.headers.location)}`)
        if (before !== after) failures.push(`${label}: the store changed`)
        if (answer.status === 403) {
          const requestId = String(answer.headers['x-request-id'])
          const audited = await store(
            `SELECT result FROM audit_events WHERE request_id = ? AND result = 'denied'`,
            [requestId],
          )
          if (audited.length === 0) failures.push(`${label}: 403 not audited`)
        }
      }
    }
    expect(failures).toEqual([])
    expect(attacked).toBeGreaterThan(300)
  }, 300_000)
})

/** An answer with its request id taken out, to compare two refusals. */
const shape = (answer: RawAnswer) => `${answer.status} ${answer.body.replace(/[0-9a-f-]{36}/g, 'ID')}`

describe('"exists but not yours" and "does not exist" answer alike', () => {
  it('for secrets of another project, of an unreachable environment, and admin targets of a member', async () => {
    const differences: string[] = []
    const pairs: [Principal, string, string][] = []
    for (const route of ['', '/versions', '/versions/1'])
      for (const query of [
        `environment=prod&project=${vault.projectId}`,
        'environment=prod',
        `environment=prod&project=demo`,
      ]) {
        pairs.push([
          'otherProject',
          `/api/v1/secrets/${canary.prodName}${route}?${query}`,
          `/api/v1/secrets/NO_SUCH_KEY_7F${route}?${query}`,
        ])
        pairs.push([
          'devOnly',
          `/api/v1/secrets/${canary.prodName}${route}?${query}`,
          `/api/v1/secrets/NO_SUCH_KEY_7F${route}?${query}`,
        ])
      }
    pairs.push([
      'otherProject',
      `/api/v1/audit?project=${vault.projectId}`,
      `/api/v1/audit?project=00000000-0000-4000-8000-000000000000`,
    ])
    pairs.push([
      'humanMember',
      `/api/v1/admin/projects/demo/identities`,
      `/api/v1/admin/projects/no-such-project/identities`,
    ])
    pairs.push([
      'humanMember',
      `/api/v1/admin/projects/demo/webhooks`,
      `/api/v1/admin/projects/no-such-project/webhooks`,
    ])
    pairs.push([
      'humanMember',
      `/api/v1/admin/audit?project=demo`,
      `/api/v1/admin/audit?project=no-such-project`,
    ])
    for (const [principal, existing, missing] of pairs) {
      const headers = { authorization: `Bearer ${tokens[principal]}` }
      const [a, b] = [
        await send(vault, { path: existing, headers }),
        await send(vault, { path: missing, headers }),
      ]
      expect(a.status, `${principal} ${existing}`).toBeGreaterThanOrEqual(400)
      if (
        shape(a).replace(canary.prodName, 'NAME') !==
        shape(b)
          .replace('NO_SUCH_KEY_7F', 'NAME')
          .replace(/00000000-0000-4000-8000-000000000000/g, 'ID')
      )
        differences.push(`${principal} ${existing}: ${shape(a)} | ${shape(b)}`)
    }
    expect(differences).toEqual([])
  })
})

describe('the change feed of a scoped identity', () => {
  it('streams only its environment, whatever Last-Event-ID it resumes after', async () => {
    const [head] = await store(`SELECT seq FROM audit_head WHERE id = 1`)
    const prodSeq = await store(
      `SELECT seq FROM audit_events WHERE environment = 'prod' ORDER BY seq LIMIT 1`,
    )
    for (const after of ['0', String(Number(prodSeq[0]!.seq) - 1), String(head!.seq)]) {
      const feed = await openFeed(vault.url, tokens.devOnly, 'dev', after)
      expect(feed.status).toBe(200)
      for (let waited = 0; !feed.raw().includes(': heartbeat') && waited < 10_000; waited += 20)
        await new Promise((done) => setTimeout(done, 20))
      expect(feed.raw()).toContain(': heartbeat')
      feed.close()
      for (const text of [canary.prodName, canary.stagingName, ...secretStrings])
        expect(feed.raw()).not.toContain(text)
    }
    for (const environment of ['prod', 'staging']) {
      const refused = await openFeed(vault.url, tokens.devOnly, environment, '0')
      expect(refused.status).toBe(403)
      refused.close()
    }
  })
})

describe('a console session used cross-site', () => {
  it('changes nothing without the form token, with a wrong one, or from another site; the API ignores the cookie', async () => {
    const failures: string[] = []
    const cookie = `vault_session=${sessions.admin.id}`
    const posts = routeKeys(consoleResources(vault.running.context)).filter(
      (key) => key.startsWith('POST ') && classOf(key) !== 'console-public',
    )
    expect(posts.length).toBeGreaterThan(10)
    for (const key of posts) {
      const [attack] = fill(key, target, 'humanMember')
      const form = new URLSearchParams(attack!.body)
      const variants = [
        { csrf: undefined, site: 'same-origin' },
        { csrf: sessions.member.csrfToken, site: 'same-origin' },
        { csrf: sessions.admin.csrfToken, site: 'cross-site' },
        { csrf: sessions.admin.csrfToken, site: 'same-site' },
      ]
      for (const variant of variants) {
        const body = new URLSearchParams(form)
        if (variant.csrf === undefined) body.delete('csrf')
        else body.set('csrf', variant.csrf)
        const before = await storeDigest()
        const answer = await send(vault, {
          method: 'POST',
          path: attack!.path,
          headers: {
            cookie,
            'content-type': 'application/x-www-form-urlencoded',
            'sec-fetch-site': variant.site,
            origin: 'https://evil.example',
          },
          body: body.toString(),
        })
        const label = `${attack!.path} csrf=${variant.csrf === undefined ? 'none' : 'other'} site=${variant.site}`
        if (answer.status !== 403) failures.push(`${label}: ${answer.status}`)
        if ((await storeDigest()) !== before) failures.push(`${label}: the store changed`)
      }
    }
    for (const key of routeKeys(apiResources(vault.running.context)).filter(
      (k) => !k.startsWith('GET ') && classOf(k) !== 'public',
    )) {
      for (const attack of fill(key, target, 'none')) {
        const before = await storeDigest()
        const answer = await send(vault, {
          method: attack.method,
          path: attack.path,
          headers: { cookie, 'content-type': 'application/json' },
          body: attack.body,
        })
        if (answer.status !== 401)
          failures.push(`cookie only ${attack.method} ${attack.path}: ${answer.status}`)
        if ((await storeDigest()) !== before)
          failures.push(`cookie only ${attack.method} ${attack.path}: the store changed`)
      }
    }
    expect(failures).toEqual([])
  }, 120_000)
})

describe('a write-only identity', () => {
  it('never gets a value it did not write back from a write, a rollback or a delete', async () => {
    const token = tokens.writeOnly
    const answers = [
      await api('PATCH', `/api/v1/secrets/${canary.prodName}?environment=prod`, token, {
        value: 'write-only-new',
      }),
      await api('POST', `/api/v1/secrets/${canary.prodName}/rollback?environment=prod`, token, {
        version: 1,
      }),
      await api('POST', `/api/v1/secrets/${canary.prodName}/rollback?environment=prod`, token, {
        version: 2,
      }),
      await api('PUT', `/api/v1/secrets/${canary.prodName}?environment=prod`, token, {
        value: canary.prodValue,
      }),
      await api('POST', '/api/v1/secrets?environment=prod', token, { name: canary.prodName, value: 'x' }),
      await api('GET', `/api/v1/secrets/${canary.prodName}?environment=prod`, token),
      await api('GET', `/api/v1/secrets/${canary.prodName}/versions/1?environment=prod`, token),
      await api('GET', `/api/v1/secrets?environment=prod&values=false`, token),
    ]
    expect(answers.slice(0, 4).map((answer) => answer.status)).toEqual([200, 200, 200, 200])
    expect(answers.slice(5).map((answer) => answer.status)).toEqual([403, 403, 403])
    for (const answer of answers)
      for (const text of [canary.prodOldValue, 'write-only-new', canary.stagingValue])
        expect(answer.body).not.toContain(text)
  })
})
