/**
 * The vault API without a socket: createApiHandler takes one ApiRequest and returns one ApiResponse,
 * over a real SQLite store in a temporary directory.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiRequest } from '../../../../src/server/http/api.js'
import { createApiHandler } from '../../../../src/server/http/app.js'
import { createIdentity, createProject } from '../../../../src/server/identities.js'
import { createVaultContext, openVault } from '../../../../src/server/server.js'
import type { SqlDriver } from '../../../../src/server/store/index.js'

function call(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const request: ApiRequest = {
    method,
    url: new URL(path, 'http://vault.invalid'),
    headers: init.headers ?? {},
    params: {},
    origin: { ip: '127.0.0.1', requestId: `unit-${method}-${path}` },
    body: async () => Buffer.from(init.body ?? ''),
  }
  return handle(request)
}

let handle: ReturnType<typeof createApiHandler>
let driver: SqlDriver
let credentials: { clientId: string; clientSecret: string }
const dir = mkdtempSync(join(tmpdir(), 'vault-handler-'))

beforeAll(async () => {
  const config = { dbUrl: `sqlite://${join(dir, 'vault.db')}`, encryptionKey: randomBytes(32) }
  const opened = await openVault(config)
  driver = opened.driver
  const made = await driver.transaction(async (tx) => {
    const project = await createProject(tx, 'unit', ['dev'])
    return createIdentity(tx, opened.keyring, {
      projectId: project.id,
      name: 'unit-deployment',
      permissions: { dev: ['read', 'write'] },
    })
  })
  credentials = { clientId: made.identity.clientId, clientSecret: made.clientSecret }
  handle = createApiHandler(
    createVaultContext({ driver, keyring: opened.keyring, config: { jwtSecret: randomBytes(32) } }),
  )
})

afterAll(async () => {
  await driver.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the API handler, one call in and one response out', () => {
  it('issues a token, writes a secret with an ETag and reads it back', async () => {
    const issued = await call('POST', '/api/v1/auth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...toFields(credentials) }).toString(),
    })
    expect(issued.status).toBe(200)
    const token = (issued.json as { access_token: string }).access_token
    const bearer = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const written = await call('PUT', '/api/v1/secrets/UNIT_VALUE?environment=dev', {
      headers: bearer,
      body: JSON.stringify({ value: 'unit-canary' }),
    })
    expect(written.status).toBe(201)
    expect(written.headers?.etag).toBe('"1"')
    const read = await call('GET', '/api/v1/secrets/UNIT_VALUE?environment=dev', { headers: bearer })
    expect(read).toMatchObject({ status: 200, json: { name: 'UNIT_VALUE', value: 'unit-canary' } })
    const head = await call('HEAD', '/api/v1/secrets/UNIT_VALUE?environment=dev', { headers: bearer })
    expect(head.status).toBe(200)
    const whoami = await call('GET', '/api/v1/whoami', { headers: bearer })
    expect(whoami.json).toMatchObject({ project: { name: 'unit' }, identity: { name: 'unit-deployment' } })
  })

  it('answers 405 with Allow, and 401 without a token', async () => {
    const wrong = await call('PATCH', '/api/v1/secrets')
    expect(wrong.status).toBe(405)
    expect(wrong.headers?.allow).toBe('GET, POST, HEAD')
    expect((await call('GET', '/api/v1/secrets?environment=dev')).status).toBe(401)
  })
})

function toFields(credentials: { clientId: string; clientSecret: string }) {
  return { client_id: credentials.clientId, client_secret: credentials.clientSecret }
}
