/**
 * The vault server's acceptance suite, run once per storage adapter: a real server over HTTP on
 * 127.0.0.1, a real SQLite file and a real PostgreSQL (from the harness), second real processes for
 * revocation across replicas and for SIGKILL durability.
 */
import { createHmac } from 'node:crypto'
import { readFileSync, existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signAccessToken } from '../../src/server/tokens/tokens.js'
import { openDriver, exportTables } from '../../src/server/store/index.js'
import { startVault } from '../../src/server/server.js'
import { schemaVersion } from '../../src/server/migrations.js'
import { createDatabase, postgresOrNull } from '../helpers/components.js'
import { spawnVaultProcess, startVaultServer, type TestVault } from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const adapters = [
  { adapter: 'sqlite', available: true },
  { adapter: 'postgres', available: postgres !== null },
]

interface Call {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies of many shapes, each checked by expect
  body: any
  text: string
  headers: Headers
}

async function call(
  vault: TestVault,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Call> {
  const response = await fetch(`${vault.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: response.status, body: parsed, text, headers: response.headers }
}

async function rows(dbUrl: string, sql: string, params: (string | number)[] = []) {
  const driver = openDriver(dbUrl)
  try {
    return await driver.transaction((tx) => tx.all(sql, params))
  } finally {
    await driver.close()
  }
}

async function deniedCount(dbUrl: string): Promise<number> {
  const [row] = await rows(dbUrl, `SELECT COUNT(*) AS n FROM audit_events WHERE result = 'denied'`)
  return Number(row!.n)
}

describe.each(adapters)('vault server on $adapter', ({ adapter, available }) => {
  let vault: TestVault
  let token: string
  const fresh = async () => (adapter === 'postgres' ? createDatabase(postgres!) : undefined)

  beforeAll(async () => {
    if (!available) return
    vault = await startVaultServer({ dbUrl: await fresh() })
    token = await vault.token(vault.deploymentCredentials)
  })
  afterAll(async () => {
    await vault?.stop()
  })

  describe.skipIf(!available)('isolation', () => {
    it('keeps project B away from project A and audits each denial', async () => {
      await call(vault, token, 'PUT', '/api/v1/secrets/ISOLATED?environment=dev', { value: 'project-a-only' })
      const other = await vault.createProject(`other${adapter}`)
      const otherToken = await vault.token(other.credentials)
      const before = await deniedCount(vault.dbUrl)
      const asB = await call(vault, otherToken, 'GET', '/api/v1/secrets?environment=dev')
      expect(asB.status).toBe(200)
      expect(asB.body.secrets).toEqual([])
      expect((await call(vault, otherToken, 'GET', '/api/v1/secrets/ISOLATED?environment=dev')).status).toBe(
        404,
      )
      const crossProject = await call(
        vault,
        otherToken,
        'GET',
        `/api/v1/secrets?environment=dev&project=${vault.projectId}`,
      )
      expect(crossProject.status).toBe(403)
      expect(crossProject.body.error.code).toBe('forbidden')
      const patch = await call(
        vault,
        otherToken,
        'PATCH',
        `/api/v1/secrets/ISOLATED?environment=dev&project=${vault.projectId}`,
        { value: 'x' },
      )
      expect(patch.status).toBe(403)
      expect(await deniedCount(vault.dbUrl)).toBe(before + 2)
      const mine = await call(vault, token, 'GET', '/api/v1/secrets/ISOLATED?environment=dev')
      expect(mine.body.value).toBe('project-a-only')
    })

    it.each([
      [
        'a read-only identity writing',
        'dev=read',
        'PATCH',
        '/api/v1/secrets/ISOLATED?environment=dev',
        { value: 'nope' },
      ],
      [
        'a read-only identity deleting',
        'dev=read',
        'DELETE',
        '/api/v1/secrets/ISOLATED?environment=dev',
        undefined,
      ],
      [
        'an identity without prod reading prod',
        'dev=read,write',
        'GET',
        '/api/v1/secrets?environment=prod',
        undefined,
      ],
      ['a non-admin reading the audit log', 'dev=read,write', 'GET', '/api/v1/audit', undefined],
    ])('refuses %s with 403 and audits it', async (label, permissions, method, path, body) => {
      const identity = await vault.createIdentity(`limited-${label.replace(/\W+/g, '-')}`, permissions)
      const limitedToken = await vault.token(identity)
      const before = await deniedCount(vault.dbUrl)
      const response = await call(vault, limitedToken, method, path, body)
      expect(response.status).toBe(403)
      expect(response.body.error.code).toBe('forbidden')
      expect(await deniedCount(vault.dbUrl)).toBe(before + 1)
    })

    it('resolves the environment only when the identity reaches exactly one', async () => {
      const single = await vault.token(await vault.createIdentity('dev-only', 'dev=read'))
      expect((await call(vault, single, 'GET', '/api/v1/secrets')).body.environment).toBe('dev')
      const many = await call(vault, token, 'GET', '/api/v1/secrets')
      expect(many.status).toBe(400)
      expect(many.body.error.code).toBe('environment_required')
      expect(many.body.error.message).toContain('prod')
    })
  })

  describe.skipIf(!available)('tokens', () => {
    const forge = (header: object, payload: object, key: string) => {
      const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
      const body = `${encode(header)}.${encode(payload)}`
      return `${body}.${createHmac('sha256', Buffer.from(key, 'hex')).update(body).digest('base64url')}`
    }

    it.each([
      [
        'expired',
        async () =>
          (
            await signAccessToken(
              Buffer.from(vault.jwtSecret, 'hex'),
              { identityId: 'x', projectId: vault.projectId },
              -10,
            )
          ).token,
      ],
      [
        'tampered',
        () => {
          const [head, payload, signature] = token.split('.')
          const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
          claims.pid = 'another-project'
          return `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
        },
      ],
      [
        'alg none',
        () => {
          const [, payload] = token.split('.')
          return `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`
        },
      ],
      [
        'signed with a wrong key',
        () =>
          forge(
            { alg: 'HS256', typ: 'JWT' },
            JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()),
            'ab'.repeat(32),
          ),
      ],
      [
        'HS512 with the right key',
        () => {
          const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
          const body = `${encode({ alg: 'HS512' })}.${token.split('.')[1]}`
          return `${body}.${createHmac('sha512', Buffer.from(vault.jwtSecret, 'hex')).update(body).digest('base64url')}`
        },
      ],
    ])('rejects a token that is %s', async (_label, make) => {
      const response = await call(vault, await make(), 'GET', '/api/v1/secrets?environment=dev')
      expect(response.status).toBe(401)
      expect(response.body.error.code).toBe('unauthorized')
      expect((await call(vault, token, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(200)
    })

    it('rejects a revoked token at once, also in a second server process', async () => {
      const second = await spawnVaultProcess(vault)
      try {
        const victim = await vault.token(vault.deploymentCredentials)
        const viaSecond = { ...vault, url: second.url }
        expect((await call(viaSecond, victim, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(200)
        const revoke = await fetch(`${vault.url}/api/v1/auth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: victim }),
        })
        expect(revoke.status).toBe(200)
        expect((await call(vault, victim, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(401)
        expect((await call(viaSecond, victim, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(401)
        expect((await call(viaSecond, token, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(200)
      } finally {
        await second.stop()
      }
    })

    it('gives an unknown client and a wrong secret the same 401, then locks the client with 429', async () => {
      const identity = await vault.createIdentity('lockout-target', 'dev=read')
      const attempt = (clientId: string, clientSecret: string) =>
        fetch(`${vault.url}/api/v1/auth/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
        })
      const unknown = await attempt('vc_unknown', 'whatever')
      const wrong = await attempt(identity.clientId, 'wrong')
      expect([unknown.status, wrong.status]).toEqual([401, 401])
      expect(await unknown.json()).toEqual(await wrong.json())
      for (let i = 0; i < 4; i++) await attempt(identity.clientId, 'wrong')
      const locked = await attempt(identity.clientId, identity.clientSecret)
      expect(locked.status).toBe(429)
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0)
    })
  })

  describe.skipIf(!available)('crypto at rest', () => {
    async function storedVersion(name: string, environment = 'dev') {
      const [row] = await rows(
        vault.dbUrl,
        `SELECT v.secret_id, v.version, v.ciphertext FROM secret_versions v JOIN secrets s ON s.id = v.secret_id
         WHERE s.name = ? AND s.environment = ? AND v.version = s.version`,
        [name, environment],
      )
      return row as { secret_id: string; version: number; ciphertext: string }
    }
    async function overwrite(row: { secret_id: string; version: number }, ciphertext: string) {
      await rows(
        vault.dbUrl,
        `UPDATE secret_versions SET ciphertext = ? WHERE secret_id = ? AND version = ?`,
        [ciphertext, row.secret_id, row.version],
      )
    }

    it('turns a flipped bit into an integrity error, never data', async () => {
      await call(vault, token, 'PUT', '/api/v1/secrets/FLIPPED?environment=dev', {
        value: 'flip-canary-value',
      })
      const row = await storedVersion('FLIPPED')
      const raw = Buffer.from(row.ciphertext.slice(3), 'base64')
      raw[raw.length - 1]! ^= 0x01
      await overwrite(row, `v1.${raw.toString('base64')}`)
      const response = await call(vault, token, 'GET', '/api/v1/secrets/FLIPPED?environment=dev')
      expect(response.status).toBe(500)
      expect(response.body.error.code).toBe('integrity_error')
      expect(response.text).not.toContain('flip-canary')
    })

    it('refuses ciphertext copied into another row', async () => {
      await call(vault, token, 'PUT', '/api/v1/secrets/SOURCE_ROW?environment=dev', { value: 'source-value' })
      await call(vault, token, 'PUT', '/api/v1/secrets/TARGET_ROW?environment=dev', { value: 'target-value' })
      const source = await storedVersion('SOURCE_ROW')
      await overwrite(await storedVersion('TARGET_ROW'), source.ciphertext)
      const response = await call(vault, token, 'GET', '/api/v1/secrets/TARGET_ROW?environment=dev')
      expect(response.status).toBe(500)
      expect(response.text).not.toContain('source-value')
      expect((await call(vault, token, 'GET', '/api/v1/secrets/SOURCE_ROW?environment=dev')).body.value).toBe(
        'source-value',
      )
    })

    it('checks the stored ciphertext on every read, also of values this process has opened before', async () => {
      const path = (name: string) => `/api/v1/secrets/${name}?environment=staging`
      await call(vault, token, 'PUT', path('OPENED_BEFORE'), { value: 'opened-canary-value' })
      await call(vault, token, 'PUT', path('OPENED_OTHER'), { value: 'other-canary-value' })
      const list = () => call(vault, token, 'GET', '/api/v1/secrets?environment=staging')
      expect((await call(vault, token, 'GET', path('OPENED_BEFORE'))).body.value).toBe('opened-canary-value')
      expect((await list()).status).toBe(200)
      const original = await storedVersion('OPENED_BEFORE', 'staging')
      const raw = Buffer.from(original.ciphertext.slice(3), 'base64')
      raw[raw.length - 1]! ^= 0x01
      const tampered = [
        `v1.${raw.toString('base64')}`,
        (await storedVersion('OPENED_OTHER', 'staging')).ciphertext,
      ]
      for (const ciphertext of tampered) {
        await overwrite(original, ciphertext)
        for (const response of [await call(vault, token, 'GET', path('OPENED_BEFORE')), await list()]) {
          expect(response.status).toBe(500)
          expect(response.body.error.code).toBe('integrity_error')
          expect(response.text).not.toMatch(/opened-canary|other-canary/)
        }
      }
      await overwrite(original, original.ciphertext)
      expect((await call(vault, token, 'GET', path('OPENED_BEFORE'))).body.value).toBe('opened-canary-value')
      expect((await list()).status).toBe(200)
    })

    it('stops startup on a wrong ENCRYPTION_KEY, naming both fingerprints, and writes nothing', async () => {
      const before = JSON.stringify(await exportTablesOf(vault.dbUrl))
      const wrongKey = Buffer.alloc(32, 7)
      const attempt = startVault({
        encryptionKey: wrongKey,
        jwtSecret: Buffer.alloc(32, 1),
        dbUrl: vault.dbUrl,
        host: '127.0.0.1',
        port: 0,
        dev: true,
        behindProxy: false,
      })
      await expect(attempt).rejects.toThrow(
        /ENCRYPTION_KEY does not match this database \(expects fingerprint [0-9a-f]{16}, got [0-9a-f]{16}\)/,
      )
      expect(JSON.stringify(await exportTablesOf(vault.dbUrl))).toBe(before)
    })
  })

  describe.skipIf(!available)('concurrency', () => {
    it('gives 50 parallel PATCHes versions 1..51 with 50 audit events', async () => {
      await call(vault, token, 'POST', '/api/v1/secrets?environment=dev', { name: 'RACED', value: 'v1' })
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          call(vault, token, 'PATCH', '/api/v1/secrets/RACED?environment=dev', { value: `v${index + 2}` }),
        ),
      )
      expect(results.map((result) => result.status)).toEqual(Array(50).fill(200))
      const acknowledged = results.map((result) => result.body.version).sort((a, b) => a - b)
      expect(acknowledged).toEqual(Array.from({ length: 50 }, (_, index) => index + 2))
      const versions = await call(vault, token, 'GET', '/api/v1/secrets/RACED/versions?environment=dev')
      expect(versions.body.versions.map((entry: { version: number }) => entry.version)).toEqual(
        Array.from({ length: 51 }, (_, index) => index + 1),
      )
      const [audit] = await rows(
        vault.dbUrl,
        `SELECT COUNT(*) AS n FROM audit_events WHERE action = 'secret.update' AND target = 'RACED'`,
      )
      expect(Number(audit!.n)).toBe(50)
    })

    it('keeps versions linear when two server processes write the same secret', async () => {
      const second = await spawnVaultProcess(vault)
      try {
        const viaSecond = { ...vault, url: second.url }
        await call(vault, token, 'PUT', '/api/v1/secrets/TWO_PROCESSES?environment=dev', { value: 'v1' })
        const writes = Array.from({ length: 40 }, (_, index) =>
          call(
            index % 2 ? viaSecond : vault,
            token,
            'PATCH',
            '/api/v1/secrets/TWO_PROCESSES?environment=dev',
            { value: `v${index}` },
          ),
        )
        const results = await Promise.all(writes)
        expect(results.map((result) => result.status)).toEqual(Array(40).fill(200))
        expect(results.map((result) => result.body.version).sort((a, b) => a - b)).toEqual(
          Array.from({ length: 40 }, (_, index) => index + 2),
        )
        const versions = await call(
          viaSecond,
          token,
          'GET',
          '/api/v1/secrets/TWO_PROCESSES/versions?environment=dev',
        )
        expect(versions.body.versions).toHaveLength(41)
      } finally {
        await second.stop()
      }
    })

    it.each(['PATCH', 'PUT', 'DELETE'])(
      'answers %s with a stale If-Match by 412 and writes nothing',
      async (method) => {
        const name = `STALE_${method}`
        const created = await call(vault, token, 'PUT', `/api/v1/secrets/${name}?environment=dev`, {
          value: 'one',
        })
        expect(created.headers.get('etag')).toBe('"1"')
        const second = await call(
          vault,
          token,
          'PATCH',
          `/api/v1/secrets/${name}?environment=dev`,
          { value: 'two' },
          { 'if-match': '"1"' },
        )
        expect(second.status).toBe(200)
        const stale = await call(
          vault,
          token,
          method,
          `/api/v1/secrets/${name}?environment=dev`,
          method === 'DELETE' ? undefined : { value: 'three' },
          { 'if-match': '"1"' },
        )
        expect(stale.status).toBe(412)
        expect(stale.body.error.code).toBe('precondition_failed')
        const current = await call(vault, token, 'GET', `/api/v1/secrets/${name}?environment=dev`)
        expect([current.body.version, current.body.value, current.headers.get('etag')]).toEqual([
          2,
          'two',
          '"2"',
        ])
      },
    )

    it('deletes, lists versions with the tombstone, reads and rolls back to an old version', async () => {
      await call(vault, token, 'PUT', '/api/v1/secrets/ROLLED?environment=dev', { value: 'first' })
      await call(vault, token, 'PATCH', '/api/v1/secrets/ROLLED?environment=dev', { value: 'second' })
      expect((await call(vault, token, 'DELETE', '/api/v1/secrets/ROLLED?environment=dev')).status).toBe(204)
      expect((await call(vault, token, 'GET', '/api/v1/secrets/ROLLED?environment=dev')).status).toBe(404)
      const versions = await call(vault, token, 'GET', '/api/v1/secrets/ROLLED/versions?environment=dev')
      expect(versions.body.versions.map((entry: { deleted: boolean }) => entry.deleted)).toEqual([
        false,
        false,
        true,
      ])
      expect(
        (await call(vault, token, 'GET', '/api/v1/secrets/ROLLED/versions/1?environment=dev')).body.value,
      ).toBe('first')
      const rolled = await call(vault, token, 'POST', '/api/v1/secrets/ROLLED/rollback?environment=dev', {
        version: 1,
      })
      expect([rolled.status, rolled.body.version]).toEqual([200, 4])
      expect((await call(vault, token, 'GET', '/api/v1/secrets/ROLLED?environment=dev')).body.value).toBe(
        'first',
      )
    })
  })

  describe.skipIf(!available)("the seed's PATCH call", () => {
    it.each([
      ['application/json', 'application/json'],
      ["curl's default form type", 'application/x-www-form-urlencoded'],
      ['no content type', undefined],
    ])('updates a secret with {"value"} sent as %s', async (_label, type) => {
      await call(vault, token, 'PUT', '/api/v1/secrets/SEED_CALL?environment=dev', { value: 'before' })
      const response = await fetch(`${vault.url}/api/v1/secrets/SEED_CALL?environment=dev`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, ...(type ? { 'content-type': type } : {}) },
        body: new TextEncoder().encode(JSON.stringify({ value: `after ${type}` })),
      })
      expect(response.status).toBe(200)
      expect((await call(vault, token, 'GET', '/api/v1/secrets/SEED_CALL?environment=dev')).body.value).toBe(
        `after ${type}`,
      )
    })

    it('refuses a multipart body with 415', async () => {
      const response = await call(
        vault,
        token,
        'PATCH',
        '/api/v1/secrets/SEED_CALL?environment=dev',
        '{"value":"x"}',
        {
          'content-type': 'multipart/form-data; boundary=x',
        },
      )
      expect([response.status, response.body.error.code]).toEqual([415, 'unsupported_media_type'])
    })
  })

  describe.skipIf(!available)('bad input', () => {
    const canary = 'CANARY-bad-input-9f1c2e'
    it.each([
      [
        'a lowercase name',
        'PATCH',
        '/api/v1/secrets/lower_case?environment=dev',
        { value: canary },
        400,
        'invalid_name',
      ],
      [
        'a name with a dash',
        'POST',
        '/api/v1/secrets?environment=dev',
        { name: 'BAD-NAME', value: canary },
        400,
        'invalid_name',
      ],
      [
        'an oversized value',
        'PUT',
        '/api/v1/secrets/HUGE?environment=dev',
        { value: canary + 'x'.repeat(70_000) },
        413,
        'value_too_large',
      ],
      [
        'malformed JSON',
        'PUT',
        '/api/v1/secrets/MALFORMED?environment=dev',
        `{"value": "${canary}"`,
        400,
        'malformed_json',
      ],
      [
        'a non-string value',
        'PUT',
        '/api/v1/secrets/NUMBER?environment=dev',
        { value: 12345 },
        400,
        'bad_request',
      ],
      [
        'an unknown environment',
        'PUT',
        '/api/v1/secrets/SOMEWHERE?environment=nowhere',
        { value: canary },
        404,
        'not_found',
      ],
      [
        'a missing secret',
        'PATCH',
        '/api/v1/secrets/NEVER_CREATED?environment=dev',
        { value: canary },
        404,
        'not_found',
      ],
    ])(
      'answers %s with a JSON error that does not echo the value',
      async (_label, method, path, body, status, code) => {
        const response = await call(vault, token, method, path, body)
        expect(response.status).toBe(status)
        expect(response.body.error.code).toBe(code)
        expect(response.text).not.toContain(canary)
      },
    )
  })

  describe.skipIf(!available)('health', () => {
    it('answers HEAD / and the health endpoint without a token', async () => {
      expect((await fetch(`${vault.url}/`, { method: 'HEAD' })).status).toBe(200)
      const health = await (await fetch(`${vault.url}/api/v1/health`)).json()
      expect(health).toMatchObject({ status: 'ok', schemaVersion })
    })
  })

  describe.skipIf(!available)('hygiene and durability (separate processes)', () => {
    it('keeps canary values out of the database files, the WAL, the log and the audit table', async () => {
      const own = await startVaultServer({ dbUrl: await fresh() })
      await own.running.close()
      const child = await spawnVaultProcess(own)
      const view = { ...own, url: child.url }
      const canaries = ['CANARY-7d1e-plain-value', 'CANARY-second-ünïcode-€']
      try {
        const childToken = await own.token(own.deploymentCredentials, child.url)
        for (const [index, value] of canaries.entries()) {
          expect(
            (
              await call(view, childToken, 'PUT', `/api/v1/secrets/CANARY_${index}?environment=dev`, {
                value,
              })
            ).status,
          ).toBe(201)
          expect(
            (await call(view, childToken, 'GET', `/api/v1/secrets/CANARY_${index}?environment=dev`)).body
              .value,
          ).toBe(value)
        }
        await call(view, childToken, 'PATCH', '/api/v1/secrets/bad name?environment=dev', {
          value: canaries[0],
        })
        await call(view, childToken, 'PUT', '/api/v1/secrets/X?environment=dev', `{"value":"${canaries[0]}"`)
        const dump = JSON.stringify(await exportTablesOf(own.dbUrl))
        for (const value of canaries) {
          expect(dump).not.toContain(value)
          expect(child.log()).not.toContain(value)
          if (adapter === 'sqlite') {
            const path = own.dbUrl.slice('sqlite://'.length)
            for (const file of [path, `${path}-wal`].filter(existsSync)) {
              const bytes = readFileSync(file)
              expect(bytes.includes(Buffer.from(value, 'utf8'))).toBe(false)
            }
          }
        }
        expect(dump).toContain('CANARY_0')
      } finally {
        await child.stop()
      }
    })

    it('keeps every acknowledged write after SIGKILL in the middle of a stream of PATCHes', async () => {
      const own = await startVaultServer({ dbUrl: await fresh() })
      await own.running.close()
      let child = await spawnVaultProcess(own)
      let view = { ...own, url: child.url }
      const childToken = await own.token(own.deploymentCredentials, child.url)
      await call(view, childToken, 'PUT', '/api/v1/secrets/STREAMED?environment=dev', { value: 'v1' })
      let lastAcknowledged = 1
      const writers = Array.from({ length: 4 }, async () => {
        for (;;) {
          try {
            const result = await call(view, childToken, 'PATCH', '/api/v1/secrets/STREAMED?environment=dev', {
              value: `value-${Date.now()}`,
            })
            if (result.status !== 200) return
            lastAcknowledged = Math.max(lastAcknowledged, result.body.version)
          } catch {
            return
          }
        }
      })
      // killed in the middle of the stream, once a few writes were acknowledged (not after a fixed time)
      for (let waited = 0; lastAcknowledged <= 5 && waited < 30_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20))
      child.child.kill('SIGKILL')
      await Promise.all(writers)
      await child.stop()
      expect(lastAcknowledged).toBeGreaterThan(5)
      child = await spawnVaultProcess(own)
      view = { ...own, url: child.url }
      try {
        if (adapter === 'sqlite') {
          const [check] = await rows(own.dbUrl, 'PRAGMA integrity_check')
          expect(Object.values(check!)[0]).toBe('ok')
        }
        const freshToken = await own.token(own.deploymentCredentials, child.url)
        const versions = await call(
          view,
          freshToken,
          'GET',
          '/api/v1/secrets/STREAMED/versions?environment=dev',
        )
        const numbers: number[] = versions.body.versions.map((entry: { version: number }) => entry.version)
        expect(numbers.length).toBeGreaterThanOrEqual(lastAcknowledged)
        expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => index + 1))
        const current = await call(view, freshToken, 'GET', '/api/v1/secrets/STREAMED?environment=dev')
        expect(current.status).toBe(200)
        expect(current.body.version).toBeGreaterThanOrEqual(lastAcknowledged)
      } finally {
        await child.stop()
      }
    })
  })
})

async function exportTablesOf(dbUrl: string) {
  const driver = openDriver(dbUrl)
  try {
    return await exportTables(driver)
  } finally {
    await driver.close()
  }
}
