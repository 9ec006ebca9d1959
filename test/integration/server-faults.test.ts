/**
 * Issue 33 item 10: a full disk and a database that went down are answered 503 with Retry-After and
 * a JSON error in the API's shape, and the server's log names the cause (SQLITE_FULL, ECONNREFUSED
 * to PostgreSQL) without a secret value or the database password. Real components: a real server
 * process on a real SQLite file in a small tmpfs filled to the brim, and on a private PostgreSQL
 * cluster that the test stops and starts again. The server recovers once the fault is gone.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  pausePostgres,
  postgresUnavailableReason,
  resumePostgres,
  startPostgres,
  stopPostgres,
  type PostgresInfo,
} from '../harness/postgres.js'
import { createDatabase } from '../helpers/components.js'
import {
  spawnVaultProcess,
  startVaultServer,
  type TestVault,
  type VaultProcess,
} from '../helpers/vault-server.js'

interface Answer {
  status: number
  retryAfter: string | null
  body: { error?: { code: string; message: string }; value?: string }
  text: string
}

async function api(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  })
  const text = await response.text()
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: JSON.parse(text),
    text,
  }
}

const canary = (label: string) => `CANARY-${label}-${randomBytes(8).toString('hex')}`

const isRoot = process.getuid?.() === 0

describe.skipIf(!isRoot)('faults: SQLite on a full disk (a 4 MiB tmpfs; mounting needs root)', () => {
  let mountPoint: string
  let seed: TestVault
  let server: VaultProcess
  let token: string
  const filler = () => join(mountPoint, 'filler')

  beforeAll(async () => {
    mountPoint = mkdtempSync('/tmp/vault-full-disk-')
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=700', 'tmpfs', mountPoint])
    seed = await startVaultServer({ dbUrl: `sqlite://${join(mountPoint, 'vault.db')}` })
    server = await spawnVaultProcess({
      dbUrl: seed.dbUrl,
      encryptionKey: seed.encryptionKey,
      jwtSecret: seed.jwtSecret,
    })
    token = await seed.token(seed.deploymentCredentials, server.url)
  }, 60_000)

  afterAll(async () => {
    await server?.stop()
    await seed?.stop()
    if (mountPoint) {
      execFileSync('umount', [mountPoint])
      rmSync(mountPoint, { recursive: true, force: true })
    }
  })

  it('answers 503 storage_full with Retry-After, logs SQLITE_FULL, and writes again once space is freed', async () => {
    const kept = canary('kept')
    expect(
      (await api(server.url, token, 'PUT', '/api/v1/secrets/KEPT?environment=dev', { value: kept })).status,
    ).toBe(201)

    const fd = openSync(filler(), 'w')
    try {
      const chunk = Buffer.alloc(64 * 1024)
      for (let written = 0; written < 8 * 1024 * 1024; written += chunk.length) writeSync(fd, chunk)
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
    } finally {
      closeSync(fd)
    }

    const values: string[] = []
    let refused: Answer | undefined
    for (let round = 0; round < 50 && !refused; round++) {
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, index) => {
          const value = `${canary(`full-${round}-${index}`)}-${'x'.repeat(16 * 1024)}`
          values.push(value)
          return api(server.url, token, 'PUT', `/api/v1/secrets/FILL_${round}_${index}?environment=dev`, {
            value,
          })
        }),
      )
      refused = answers.find((answer) => answer.status !== 201)
    }
    expect(refused, 'the disk never filled').toBeDefined()
    expect(refused!.status).toBe(503)
    expect(refused!.retryAfter).toBe('60')
    expect(refused!.body.error).toMatchObject({ code: 'storage_full' })
    expect(refused!.body.error!.message).toMatch(
      /out of disk space; nothing was written; retry later \(request /,
    )
    expect(server.log()).toMatch(
      /request \S+ failed: the database is out of disk space: SQLITE_FULL: database or disk is full/,
    )
    for (const value of [kept, ...values]) {
      expect(server.log()).not.toContain(value.slice(0, 30))
      expect(refused!.text).not.toContain(value.slice(0, 30))
    }

    rmSync(filler())
    const after = canary('after')
    expect(
      (await api(server.url, token, 'PUT', '/api/v1/secrets/AFTER?environment=dev', { value: after })).status,
    ).toBe(201)
    expect((await api(server.url, token, 'GET', '/api/v1/secrets/KEPT?environment=dev')).body.value).toBe(
      kept,
    )
    expect((await api(server.url, token, 'GET', '/api/v1/secrets/AFTER?environment=dev')).body.value).toBe(
      after,
    )
  }, 90_000)
})

describe.skipIf(postgresUnavailableReason() !== undefined)('faults: PostgreSQL goes down', () => {
  const password = canary('pg-password')
  let cluster: PostgresInfo
  let seed: TestVault
  let server: VaultProcess
  let token: string

  beforeAll(async () => {
    cluster = await startPostgres({ superuserPassword: password })
    seed = await startVaultServer({ dbUrl: await createDatabase(cluster) })
    server = await spawnVaultProcess({
      dbUrl: seed.dbUrl,
      encryptionKey: seed.encryptionKey,
      jwtSecret: seed.jwtSecret,
    })
    token = await seed.token(seed.deploymentCredentials, server.url)
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await seed?.stop()
    if (cluster) await stopPostgres(cluster)
  })

  it('answers 503 database_unavailable with Retry-After, logs the cause without the password, and serves again once it is back', async () => {
    const value = canary('pg-value')
    expect(
      (await api(server.url, token, 'PUT', '/api/v1/secrets/UP?environment=dev', { value })).status,
    ).toBe(201)

    const feed = await fetch(`${server.url}/api/v1/events?environment=dev`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(20_000),
    })
    expect(feed.status).toBe(200)
    const feedText = feed.text()

    pausePostgres(cluster)
    // the open change feed ends with an error event that says what happened (its next poll fails)
    const ended = await feedText
    expect(ended).toMatch(
      /event: error\ndata: \{"code":"database_unavailable","message":"the vault's database is unavailable; retry later \(request [^)]+\)"\}/,
    )
    for (let attempt = 0; attempt < 3; attempt++) {
      const down = await api(server.url, token, 'GET', '/api/v1/secrets/UP?environment=dev')
      expect(down.status).toBe(503)
      expect(down.retryAfter).toBe('5')
      expect(down.body.error).toMatchObject({ code: 'database_unavailable' })
      expect(down.body.error!.message).toMatch(/database is unavailable; retry later \(request /)
      expect(down.text).not.toContain(value)
      expect(down.text).not.toContain(String(cluster.port))
    }
    const log = server.log()
    expect(log).toMatch(
      new RegExp(
        `failed: database unavailable: (ECONNREFUSED connecting to PostgreSQL at 127\\.0\\.0\\.1:${cluster.port}|57P01 admin_shutdown)`,
      ),
    )
    expect(log).toMatch(/ECONNREFUSED connecting to PostgreSQL at 127\.0\.0\.1:\d+/)
    expect(log).toMatch(/change feed \S+ failed: database unavailable: /)
    expect(log).not.toContain(password)
    expect(log).not.toContain('postgres://')
    expect(log).not.toContain(value)

    resumePostgres(cluster)
    let back: Answer | undefined
    for (let attempt = 0; attempt < 50 && back?.status !== 200; attempt++) {
      back = await api(server.url, token, 'GET', '/api/v1/secrets/UP?environment=dev')
      if (back.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(back?.body.value).toBe(value)
  }, 90_000)
})
