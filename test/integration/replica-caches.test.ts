/**
 * The read caches of PostgreSQL replicas (issue 20): replica A (in this process) and replica B (a real
 * server process) on one database. B's caches are warm before each change; the change is made on A
 * (over HTTP or in A's store) or by SQL, and the very next request to B must see it: a revoked token,
 * a revoked identity, a removed permission, a changed secret value, a deleted environment. Every table
 * of the database is classified as moving a generation (with its trigger) or not (with a reason).
 * The chain stays verifiable afterwards, and a canary value never reaches B's log.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { revokeIdentity } from '../../src/server/identities.js'
import { createWebhook } from '../../src/server/webhooks/webhooks.js'
import { generationTables, tablesWithoutGeneration } from '../../src/server/store/pg-generation.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createDatabase, postgresOrNull, unavailableReason } from '../helpers/components.js'
import {
  spawnVaultProcess,
  startVaultServer,
  type TestVault,
  type VaultProcess,
} from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const canary = 'CANARY-replica-cache-7f3a91'

describe.skipIf(!postgres)(`read caches across two replicas (${unavailableReason('postgres')})`, () => {
  let vault: TestVault
  let replicaB: VaultProcess
  let sql: pg.Client

  beforeAll(async () => {
    vault = await startVaultServer({
      dbUrl: await createDatabase(postgres!, 'vault_caches'),
    })
    replicaB = await spawnVaultProcess(vault)
    sql = new pg.Client({ connectionString: vault.dbUrl })
    await sql.connect()
  })

  afterAll(async () => {
    await sql?.end()
    await replicaB?.stop()
    await vault?.stop()
  })

  async function call(base: string, token: string, method: string, path: string, body?: unknown) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    }
  }

  /** Revokes `token` through replica A (the in-process server) and expects 200. */
  async function revokeOnA(token: string) {
    const revoke = await fetch(`${vault.url}/api/v1/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    })
    expect(revoke.status).toBe(200)
  }

  /** Lists `environment` on B twice (the second from B's caches) and expects 200 both times. */
  async function warm(token: string, environment = 'dev') {
    for (let i = 0; i < 2; i++) {
      expect(
        (await call(replicaB.url, token, 'GET', `/api/v1/secrets?environment=${environment}`)).status,
      ).toBe(200)
    }
  }

  it('classifies every table: a generation trigger on those the caches read, a reason for the others', async () => {
    const { rows: tables } = await sql.query<{ tablename: string }>(
      `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`,
    )
    const classified = [...Object.keys(generationTables), ...Object.keys(tablesWithoutGeneration)].sort()
    expect(tables.map((row) => row.tablename)).toEqual(classified)
    const { rows: triggers } = await sql.query<{ relname: string }>(
      `SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE t.tgname = 'vault_generation' ORDER BY c.relname`,
    )
    expect(triggers.map((row) => row.relname)).toEqual(Object.keys(generationTables).sort())
    const { rows: truncates } = await sql.query<{ relname: string }>(
      `SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE t.tgname = 'vault_generation_truncate' ORDER BY c.relname`,
    )
    expect(truncates.map((row) => row.relname)).toEqual(Object.keys(generationTables).sort())
  })

  it('refuses a token revoked on A at the very next request to B', async () => {
    const victim = await vault.token(vault.deploymentCredentials)
    await warm(victim)
    await revokeOnA(victim)
    expect((await call(replicaB.url, victim, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(401)
  })

  it('refuses a write on B from a token revoked on A, and writes nothing', async () => {
    const victim = await vault.token(vault.deploymentCredentials)
    const put = (value: string) =>
      call(replicaB.url, victim, 'PUT', '/api/v1/secrets/CACHE_WRITER?environment=dev', { value })
    expect((await put('before-1')).status).toBe(201)
    expect((await put('before-2')).status).toBe(200)
    await revokeOnA(victim)
    expect((await put('after-revocation')).status).toBe(401)
    const { rows } = await sql.query(
      `SELECT v.version FROM secret_versions v JOIN secrets s ON s.id = v.secret_id WHERE s.name = 'CACHE_WRITER'`,
    )
    expect(rows).toHaveLength(2)
  })

  it('refuses every request sent to a busy B after the revocation on A was answered', async () => {
    const victim = await vault.token(vault.deploymentCredentials)
    await warm(victim)
    let revokedAt = Number.POSITIVE_INFINITY
    let stop = false
    const late: number[] = []
    const clients = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const sentAt = performance.now()
        const { status } = await call(replicaB.url, victim, 'GET', '/api/v1/secrets?environment=dev')
        if (sentAt > revokedAt) late.push(status)
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await revokeOnA(victim)
    revokedAt = performance.now()
    await new Promise((resolve) => setTimeout(resolve, 300))
    stop = true
    await Promise.all(clients)
    expect(late.length).toBeGreaterThan(0)
    expect(late.filter((status) => status !== 401)).toEqual([])
  })

  it('refuses a token revoked on A at B even where the answer would be an error (no probing of names)', async () => {
    const victim = await vault.token(vault.deploymentCredentials)
    await warm(victim)
    const missing = () =>
      call(replicaB.url, victim, 'GET', '/api/v1/secrets/CACHE_NO_SUCH_NAME?environment=dev')
    expect((await missing()).status).toBe(404)
    await revokeOnA(victim)
    expect((await missing()).status).toBe(401)
  })

  it('refuses the tokens of an identity revoked in A, at the next request to B', async () => {
    const credentials = await vault.createIdentity('cache-revoked', {
      dev: ['read'],
    })
    const token = await vault.token(credentials)
    await warm(token)
    const { driver, keyring } = vault.running.context
    await driver.transaction((tx) => revokeIdentity(tx, keyring, vault.projectId, 'cache-revoked'))
    expect((await call(replicaB.url, token, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(401)
  })

  it('applies a permission removed by SQL at the next request to B', async () => {
    const credentials = await vault.createIdentity('cache-narrowed', {
      dev: ['read'],
      staging: ['read'],
    })
    const token = await vault.token(credentials)
    await warm(token)
    const { rows } = await sql.query<{ permissions: string }>(
      `SELECT permissions FROM identities WHERE name = 'cache-narrowed'`,
    )
    const narrow = (permissions: string) =>
      sql.query(`UPDATE identities SET permissions = $1 WHERE name = 'cache-narrowed'`, [permissions])
    await narrow(JSON.stringify({ staging: ['read'] }))
    try {
      expect((await call(replicaB.url, token, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(403)
      expect((await call(replicaB.url, token, 'GET', '/api/v1/secrets?environment=staging')).status).toBe(200)
    } finally {
      await narrow(rows[0]!.permissions)
    }
  })

  it('answers a write on B allowed by a permission granted by SQL, and keeps no denial for it', async () => {
    const credentials = await vault.createIdentity('cache-granted', { dev: ['read'] })
    const token = await vault.token(credentials)
    await warm(token)
    const put = () =>
      call(replicaB.url, token, 'PUT', '/api/v1/secrets/CACHE_GRANTED?environment=dev', { value: 'granted' })
    const denials = async () =>
      Number(
        (
          await sql.query<{ n: string }>(
            `SELECT count(*) AS n FROM audit_events e JOIN identities i ON e.actor = 'identity:' || i.id
             WHERE i.name = 'cache-granted' AND e.result = 'denied'`,
          )
        ).rows[0]!.n,
      )
    // the 403 comes from B's cached principal, and its denial is audited
    expect((await put()).status).toBe(403)
    expect(await denials()).toBe(1)
    const { rows } = await sql.query<{ permissions: string }>(
      `SELECT permissions FROM identities WHERE name = 'cache-granted'`,
    )
    const grant = (permissions: string) =>
      sql.query(`UPDATE identities SET permissions = $1 WHERE name = 'cache-granted'`, [permissions])
    await grant(JSON.stringify({ dev: ['read', 'write'] }))
    try {
      expect((await put()).status).toBe(201)
      expect(await denials()).toBe(1)
    } finally {
      // the row's MAC holds the original permissions (a server start and audit verify check it)
      await grant(rows[0]!.permissions)
    }
  })

  it('shows a value PATCHed on A in the very next list on B', async () => {
    const token = await vault.token(vault.deploymentCredentials)
    const put = await call(vault.url, token, 'PUT', '/api/v1/secrets/CACHE_CHANGE?environment=dev', {
      value: 'before',
    })
    expect(put.status).toBe(201)
    await warm(token)
    const valueOnB = async () => {
      const listed = await call(replicaB.url, token, 'GET', '/api/v1/secrets?environment=dev')
      const secrets = listed.body.secrets as {
        name: string
        value: string
      }[]
      return secrets.find((secret) => secret.name === 'CACHE_CHANGE')?.value
    }
    expect(await valueOnB()).toBe('before')
    for (const value of ['after-1', 'after-2', 'after-3']) {
      const patch = await call(vault.url, token, 'PATCH', '/api/v1/secrets/CACHE_CHANGE?environment=dev', {
        value,
      })
      expect(patch.status).toBe(200)
      expect(await valueOnB()).toBe(value)
    }
  })

  it('queues a delivery to a webhook registered on A from the very next PATCH on B', async () => {
    const token = await vault.token(vault.deploymentCredentials)
    const patch = () =>
      call(replicaB.url, token, 'PATCH', '/api/v1/secrets/CACHE_CHANGE?environment=dev', { value: 'hooked' })
    expect((await patch()).status).toBe(200)
    expect((await patch()).status).toBe(200)
    const { driver, keyring } = vault.running.context
    const hook = await driver.transaction((tx) =>
      createWebhook(tx, keyring, {
        projectId: vault.projectId,
        url: 'http://127.0.0.1:9/hook',
        allowPrivate: true,
      }),
    )
    expect((await patch()).status).toBe(200)
    const { rows } = await sql.query(`SELECT body FROM webhook_outbox WHERE webhook_id = $1`, [hook.id])
    expect(rows).toHaveLength(1)
  })

  it('answers 404 for an environment deleted by SQL at the next request to B', async () => {
    const { driver } = vault.running.context
    await driver.transaction((tx) =>
      tx.run(
        `INSERT INTO environments (project_id, slug, name, created_at) VALUES (?, 'doomed', 'doomed', ?)`,
        [vault.projectId, new Date().toISOString()],
      ),
    )
    const credentials = await vault.createIdentity('cache-doomed', {
      doomed: ['read'],
    })
    const token = await vault.token(credentials)
    await warm(token, 'doomed')
    await sql.query(`DELETE FROM environments WHERE slug = 'doomed'`)
    expect((await call(replicaB.url, token, 'GET', '/api/v1/secrets?environment=doomed')).status).toBe(404)
  })

  it('empties the listing on B when a table is truncated by SQL', async () => {
    const token = await vault.token(vault.deploymentCredentials)
    const listed = async () => {
      const response = await call(replicaB.url, token, 'GET', '/api/v1/secrets?environment=dev')
      return (response.body.secrets as unknown[]).length
    }
    await warm(token)
    expect(await listed()).toBeGreaterThan(0)
    await sql.query(`TRUNCATE webhook_outbox, secret_versions, secrets`)
    expect(await listed()).toBe(0)
  })

  it('refuses a revoked token on B after the generation row was deleted and a restart installed it again', async () => {
    const token = await vault.token(vault.deploymentCredentials)
    const put = await call(vault.url, token, 'PUT', '/api/v1/secrets/CACHE_ROW?environment=dev', {
      value: 'x',
    })
    expect([200, 201]).toContain(put.status)
    const victim = await vault.token(vault.deploymentCredentials)
    await warm(victim)
    const counters = async () =>
      (await sql.query<{ auth: string; content: string }>(`SELECT auth, content FROM vault_generation`))
        .rows[0]!
    const held = await counters()
    await sql.query(`DELETE FROM vault_generation`)
    // the recovery the missing row's error names: a server's start-up installs the row again
    const restarted = await spawnVaultProcess(vault)
    await restarted.stop()
    // ordinary changes after it, up to the counters B's caches hold (none when counters never repeat)
    for (let bound = 0; BigInt((await counters()).content) < BigInt(held.content) && bound < 1000; bound++)
      await sql.query(`UPDATE secrets SET name = name WHERE name = 'CACHE_ROW'`)
    for (let bound = 0; BigInt((await counters()).auth) + 1n < BigInt(held.auth) && bound < 1000; bound++)
      await sql.query(`UPDATE projects SET name = name WHERE id = $1`, [vault.projectId])
    await revokeOnA(victim)
    expect((await call(replicaB.url, victim, 'GET', '/api/v1/secrets?environment=dev')).status).toBe(401)
  })

  it('keeps a canary value out of B logs and the chain verifiable after the changes', async () => {
    const token = await vault.token(vault.deploymentCredentials)
    expect(
      (await call(vault.url, token, 'PUT', '/api/v1/secrets/CACHE_CANARY?environment=dev', { value: canary }))
        .status,
    ).toBe(201)
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 10; i++) {
          const listed = await call(replicaB.url, token, 'GET', '/api/v1/secrets?environment=dev')
          expect(JSON.stringify(listed.body)).toContain(canary)
        }
      }),
    )
    expect(replicaB.log()).not.toContain(canary)
    const verified = await runCommandLine(['audit', 'verify'], {
      env: { DB_URL: vault.dbUrl, ENCRYPTION_KEY: vault.encryptionKey },
    })
    expect(verified.exitCode, verified.stderr).toBe(0)
    expect(verified.stderr).toMatch(/audit chain intact/)
    expect(verified.stdout + verified.stderr).not.toContain(canary)
  })
})
