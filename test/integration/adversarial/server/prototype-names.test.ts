/**
 * Issue 33 item 6: names that mean something to a JavaScript object. Every Object.prototype key
 * (`constructor`, `toString`, `__proto__`, ...) is tried as a project, environment, identity, webhook,
 * secret, header and query parameter name against a real server over HTTP, on SQLite and PostgreSQL
 * (whose read caches hold environments and principals). Properties checked for each name: no answer
 * is a 5xx; an identity reaches only what it was granted (`dev=read` never reaches an environment
 * named `constructor`, and `*=read` still reaches every environment); every denial is in the audit log;
 * the project's admin identities can still read the audit log.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, postgresOrNull } from '../../../helpers/components.js'
import { startVaultServer, type TestVault } from '../../../helpers/vault-server.js'

const postgres = postgresOrNull()
const engines = [
  { engine: 'sqlite', available: true },
  { engine: 'postgres', available: postgres !== null },
]
const prototypeKeys = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])]

type Answer = { status: number; body: Record<string, unknown> }
type Request = { method?: string; path: string; body?: unknown; headers?: Record<string, string> }

async function call(vault: TestVault, request: Request & { token: string }): Promise<Answer> {
  const response = await fetch(`${vault.url}${request.path}`, {
    method: request.method ?? 'GET',
    headers: {
      authorization: `Bearer ${request.token}`,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
    },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  })
  const text = await response.text()
  let body: Record<string, unknown>
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {}
  } catch {
    body = { text }
  }
  expect(response.status, `${request.method ?? 'GET'} ${request.path}: ${text.slice(0, 200)}`).toBeLessThan(
    500,
  )
  return { status: response.status, body }
}

const segment = encodeURIComponent

describe.each(engines)('Object.prototype names on $engine', ({ engine, available }) => {
  let vault: TestVault
  let human: string
  const deniedRows = async (environment: string) => {
    const rows = await vault.running.context.driver.transaction((tx) =>
      tx.all<{ environment: string | null; result: string }>(
        `SELECT environment, result FROM audit_events WHERE result = 'denied' AND environment = ?`,
        [environment],
      ),
    )
    return rows.length
  }

  beforeAll(async () => {
    if (!available) return
    vault = await startVaultServer(engine === 'postgres' ? { dbUrl: await createDatabase(postgres!) } : {})
    const signedIn = await fetch(`${vault.url}/api/v1/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'correct horse battery staple' }),
    })
    human = ((await signedIn.json()) as { access_token: string }).access_token
  }, 120_000)
  afterAll(() => vault?.stop())

  it.skipIf(!available)(
    'every Object.prototype key as a name: no 5xx, authorisation by own grants only, denials audited',
    async () => {
      let run = 0
      const property = fc.asyncProperty(
        fc.constantFrom(...prototypeKeys),
        fc.constantFrom<(key: string) => string>(
          (key) => key,
          (key) => key.toLowerCase(),
        ),
        async (key, variant) => {
          const name = variant(key)
          const project = `p${run++}-${engine}`
          const admin = (request: Request) => call(vault, { ...request, token: human })
          // a project of its own with dev and an environment named `name` (when the slug rules take it)
          expect(
            (
              await admin({
                method: 'POST',
                path: '/api/v1/admin/projects',
                body: { name: project, environments: ['dev'] },
              })
            ).status,
          ).toBe(201)
          const environment = await admin({
            method: 'POST',
            path: `/api/v1/admin/projects/${project}/environments`,
            body: { slug: name },
          })
          expect([201, 400, 409]).toContain(environment.status)
          const envExists = environment.status !== 400
          // a project and an identity named `name`
          const named = await admin({
            method: 'POST',
            path: '/api/v1/admin/projects',
            body: { name, environments: ['dev'] },
          })
          expect([201, 400, 409]).toContain(named.status)
          const identities = `/api/v1/admin/projects/${project}/identities`
          const identityNamed = await admin({
            method: 'POST',
            path: identities,
            body: { name, permissions: 'dev=read' },
          })
          expect([201, 400, 409]).toContain(identityNamed.status)
          // identities granted dev only, everything (*), and `name` itself
          const create = async (identity: string, permissions: string) => {
            const made = await admin({
              method: 'POST',
              path: identities,
              body: { name: identity, permissions },
            })
            expect(made.status, `${identity} ${permissions}`).toBe(201)
            const { clientId, clientSecret } = made.body.identity as {
              clientId: string
              clientSecret: string
            }
            return vault.token({ clientId, clientSecret })
          }
          const devReader = await create('dev-reader', 'dev=read')
          const everything = await create('star-reader', '*=read')
          const starAdmin = await create('star-admin', '*=read,write,admin')
          const devAdmin = await create('dev-admin', 'dev=read,write,admin')

          // reachable environments: dev only for dev-reader; dev and `name` for *=read
          const reachable = await call(vault, { path: `/api/v1/environments`, token: devReader })
          expect((reachable.body.environments as { slug: string }[]).map((row) => row.slug)).toEqual(['dev'])
          const all = await call(vault, { path: `/api/v1/environments`, token: everything })
          expect((all.body.environments as { slug: string }[]).map((row) => row.slug).sort()).toEqual(
            envExists ? ['dev', name].sort() : ['dev'],
          )
          // reaching `name` without a grant: an audited 403 (or 404 when no such environment exists)
          const before = await deniedRows(name)
          const denied = await call(vault, {
            path: `/api/v1/secrets?environment=${segment(name)}`,
            token: devReader,
          })
          expect(denied.status).toBe(envExists ? 403 : 404)
          if (envExists) expect(await deniedRows(name)).toBe(before + 1)
          // with *=read it is reachable; a write to it is an audited 403
          if (envExists) {
            expect(
              (await call(vault, { path: `/api/v1/secrets?environment=${segment(name)}`, token: everything }))
                .status,
            ).toBe(200)
            const writeBefore = await deniedRows(name)
            const write = await call(vault, {
              method: 'POST',
              path: `/api/v1/secrets?environment=${segment(name)}`,
              token: everything,
              body: { name: 'KEY', value: 'v' },
            })
            expect(write.status).toBe(403)
            expect(await deniedRows(name)).toBe(writeBefore + 1)
          }
          // the audit log stays readable by the project's admins (of every, or of some, environments)
          expect((await call(vault, { path: '/api/v1/audit', token: starAdmin })).status).toBe(200)
          expect((await call(vault, { path: '/api/v1/audit', token: devAdmin })).status).toBe(200)
          expect((await call(vault, { path: '/api/v1/audit', token: devReader })).status).toBe(403)
          // `name` as a grant, a secret, a header, a query parameter and a webhook
          const grant = await admin({
            method: 'POST',
            path: identities,
            body: { name: 'by-name', permissions: `${name}=read` },
          })
          expect(grant.status).toBe(envExists ? 201 : 400)
          const secret = await call(vault, {
            method: 'PUT',
            path: `/api/v1/secrets/${segment(name)}?environment=dev`,
            token: starAdmin,
            body: { value: 'v' },
          })
          expect([200, 201, 400]).toContain(secret.status)
          await call(vault, { path: `/api/v1/secrets/${segment(name)}?environment=dev`, token: devReader })
          const headers = { [name]: 'x', 'x-forwarded-for': name }
          expect(
            (await call(vault, { path: `/api/v1/whoami?${segment(name)}=1`, token: devReader, headers }))
              .status,
          ).toBe(200)
          const webhooks = `/api/v1/admin/projects/${project}/webhooks`
          await admin({ method: 'DELETE', path: `${webhooks}/${segment(name)}` })
          await admin({
            method: 'POST',
            path: webhooks,
            body: { url: `http://127.0.0.1:9/${name}`, [name]: 'x' },
          })
          await admin({ method: 'GET', path: `/api/v1/admin/projects/${segment(name)}/identities` })
          await admin({ method: 'DELETE', path: `${identities}/${segment(name)}` })
          await admin({
            method: 'POST',
            path: `/api/v1/admin/users`,
            body: { username: name, password: 'x'.repeat(20) },
          })
        },
      )
      await fc.assert(property, {
        examples: prototypeKeys.map(
          (key) => [key, (value: string) => value] as [string, (key: string) => string],
        ),
        numRuns: prototypeKeys.length + 8,
      })
    },
    600_000,
  )
})
