/**
 * The vault's clocks (src/server/timings.ts, issue 37): each duration has its documented production
 * default, and a value given in ServerConfig.timings is the one used: session lifetimes (on a real
 * SQLite vault, its clock moved with a fake Date), the change feed's heartbeat through the route, the
 * webhook worker's poll and retry backoff, and the flush of coalesced failed authentications.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { initialiseVault } from '../../../src/server/bootstrap.js'
import { createApiHandler } from '../../../src/server/http/app.js'
import type { ApiRequest } from '../../../src/server/http/api.js'
import { issueHumanToken } from '../../../src/server/humans/human-token.js'
import { readSession, signInHuman } from '../../../src/server/humans/session.js'
import { createIdentity } from '../../../src/server/identities.js'
import type { Keyring } from '../../../src/server/keys/keyring.js'
import { createVaultContext, openVault, startVault } from '../../../src/server/server.js'
import type { SqlDriver } from '../../../src/server/store/index.js'
import { defaultTimings, resolveTimings, type TimingOverrides } from '../../../src/server/timings.js'
import { FailedAuthLog } from '../../../src/server/tokens/failed-auth-log.js'
import { backoffMs, startWebhookWorker } from '../../../src/server/webhooks/webhooks.js'

const password = 'correct horse battery staple'
const dirs: string[] = []
const drivers: SqlDriver[] = []

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})
afterAll(async () => {
  for (const driver of drivers) await driver.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** The injected timings of the session and feed tests (one vault for all of them: argon2 is slow). */
const short: TimingOverrides = {
  session: { idleSeconds: 60, maxSeconds: 120 },
  feed: { pollMs: 10, heartbeatMs: 0 },
}
const vaults = new Map<TimingOverrides | undefined, ReturnType<typeof openedVault>>()

/** A SQLite vault with an admin account and a project `unit` (dev), and its context. */
function vaultWith(timings?: TimingOverrides) {
  if (!vaults.has(timings)) vaults.set(timings, openedVault(timings))
  return vaults.get(timings)!
}

async function openedVault(timings?: TimingOverrides) {
  const dir = mkdtempSync(join(tmpdir(), 'vault-timings-'))
  dirs.push(dir)
  const { driver, keyring } = await openVault({
    dbUrl: `sqlite://${join(dir, 'vault.db')}`,
    encryptionKey: randomBytes(32),
  })
  drivers.push(driver)
  const init = await initialiseVault(driver, keyring, {
    adminUser: 'admin',
    adminPassword: password,
    project: 'unit',
    environments: ['dev'],
  })
  const context = createVaultContext({ driver, keyring, config: { jwtSecret: randomBytes(32), timings } })
  return { context, init }
}

describe('the timings object', () => {
  it('has the documented production defaults', () => {
    expect(defaultTimings).toEqual({
      session: { idleSeconds: 30 * 60, maxSeconds: 12 * 60 * 60 },
      feed: { pollMs: 1000, heartbeatMs: 15_000 },
      webhook: { pollMs: 1000, retryBaseMs: 1000, retryMaxMs: 600_000 },
      failedAuthFlushMs: 60_000,
    })
    expect(resolveTimings()).toEqual(defaultTimings)
  })

  it('lays a partial object over the defaults, and refuses a duration that is not one', () => {
    expect(resolveTimings({ feed: { pollMs: 5 } }).feed).toEqual({ pollMs: 5, heartbeatMs: 15_000 })
    expect(resolveTimings({ session: { idleSeconds: 7 } }).session).toEqual({
      idleSeconds: 7,
      maxSeconds: 12 * 60 * 60,
    })
    expect(() => resolveTimings({ webhook: { pollMs: -1 } })).toThrow(/webhook.pollMs/)
    expect(() => resolveTimings({ failedAuthFlushMs: Number.NaN })).toThrow(/failedAuthFlushMs/)
  })
})

describe('human sessions', () => {
  const attempt = { username: 'admin', password, clientAddress: '127.0.0.1' }

  /** Signs in twice at one instant; reads the first `alive` seconds later and the second `dead` later. */
  async function idleExpiry(timings: TimingOverrides | undefined, alive: number, dead: number) {
    const { context } = await vaultWith(timings)
    const [first, second] = [await signInHuman(context, attempt), await signInHuman(context, attempt)]
    const start = Date.now()
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(start + alive * 1000)
    const stillOpen = await readSession(context, first.id)
    vi.setSystemTime(start + dead * 1000)
    const ended = await readSession(context, second.id)
    return { stillOpen, ended }
  }

  it('end after 30 minutes without a request by default', async () => {
    const { stillOpen, ended } = await idleExpiry(undefined, 29 * 60, 30 * 60 + 5)
    expect(stillOpen?.username).toBe('admin')
    expect(ended).toBeNull()
  })

  it('end after the injected idle time', async () => {
    const { stillOpen, ended } = await idleExpiry(short, 50, 65)
    expect(stillOpen?.username).toBe('admin')
    expect(ended).toBeNull()
  })

  it('last 12 hours at most by default, and the CLI token as long', async () => {
    const { context } = await vaultWith()
    const session = await signInHuman(context, attempt)
    expect((session.expiresAt.getTime() - Date.now()) / 1000).toBeCloseTo(12 * 60 * 60, -1)
    const token = await issueHumanToken(context, attempt)
    expect(token.expires_in).toBeGreaterThan(12 * 60 * 60 - 10)
    expect(token.expires_in).toBeLessThanOrEqual(12 * 60 * 60)
  })

  it('last the injected time at most, and the CLI token as long', async () => {
    const { context } = await vaultWith(short)
    const session = await signInHuman(context, attempt)
    expect((session.expiresAt.getTime() - Date.now()) / 1000).toBeCloseTo(120, -1)
    const token = await issueHumanToken(context, attempt)
    expect(token.expires_in).toBeGreaterThan(110)
    expect(token.expires_in).toBeLessThanOrEqual(120)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 121_000)
    expect(await readSession(context, session.id)).toBeNull()
  })
})

describe('the change feed route', () => {
  /** Opens the dev feed of a vault with `timings` and returns what it wrote within `ms`. */
  async function feedFor(timings: TimingOverrides | undefined, ms: number): Promise<string> {
    const { context, init } = await vaultWith(timings)
    const made = await context.driver.transaction((tx) =>
      createIdentity(tx, context.keyring, {
        projectId: init.projectId,
        name: `watcher-${randomBytes(4).toString('hex')}`,
        permissions: { dev: ['read'] },
      }),
    )
    const handle = createApiHandler(context)
    const request = (
      method: string,
      path: string,
      headers: Record<string, string>,
      body = '',
    ): ApiRequest => ({
      method,
      url: new URL(path, 'http://vault.invalid'),
      headers,
      params: {},
      origin: { ip: '127.0.0.1', requestId: `timings-${path}` },
      body: async () => Buffer.from(body),
    })
    const issued = await handle(
      request(
        'POST',
        '/api/v1/auth/token',
        { 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: made.identity.clientId,
          client_secret: made.clientSecret,
        }).toString(),
      ),
    )
    const token = (issued.json as { access_token: string }).access_token
    const answer = await handle(
      request('GET', '/api/v1/events?environment=dev', { authorization: `Bearer ${token}` }),
    )
    expect(answer.status).toBe(200)
    const stop = new AbortController()
    let text = ''
    const streaming = answer.stream!({
      write: (chunk) => void (text += chunk),
      drained: () => Promise.resolve(),
      signal: stop.signal,
    })
    await new Promise((resolve) => setTimeout(resolve, ms))
    stop.abort()
    await streaming
    return text
  }

  it('sends no heartbeat on an idle stream sooner than every 15 s by default', async () => {
    expect(await feedFor(undefined, 300)).not.toContain(': heartbeat')
  })

  it('polls and sends heartbeats at the injected intervals', async () => {
    const text = await feedFor(short, 300)
    expect(text.match(/: heartbeat/g)?.length).toBeGreaterThan(2)
  })
})

describe('the webhook worker', () => {
  /** Counts the worker's passes (each reads the due deliveries in a transaction) over fake time. */
  function passesAt(timings: Parameters<typeof startWebhookWorker>[0]['timings'], times: number[]) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    let passes = 0
    const driver = { transaction: async () => (passes++, []) } as unknown as SqlDriver
    const worker = startWebhookWorker({ driver, keyring: {} as Keyring, allowPrivate: false, timings })
    return (async () => {
      const seen: number[] = []
      for (const ms of times) {
        await vi.advanceTimersByTimeAsync(ms)
        seen.push(passes)
      }
      worker.stop()
      return seen
    })()
  }

  it('looks for due deliveries every second by default', async () => {
    expect(await passesAt(undefined, [999, 1, 1000])).toEqual([0, 1, 2])
  })

  it('looks at the injected interval', async () => {
    expect(await passesAt({ ...defaultTimings.webhook, pollMs: 50 }, [49, 1, 50])).toEqual([0, 1, 2])
  })

  it('retries after 1 s, 2 s, 4 s ... up to 10 minutes by default, or as injected', () => {
    expect([0, 1, 2, 3, 20].map((attempts) => backoffMs(attempts))).toEqual([1000, 2000, 4000, 8000, 600_000])
    const injected = { retryBaseMs: 100, retryMaxMs: 250 }
    expect([0, 1, 2, 3].map((attempts) => backoffMs(attempts, injected))).toEqual([100, 200, 250, 250])
  })
})

describe('the flush of coalesced failed authentications', () => {
  /** Starts a real vault with interval timers faked; returns the flush calls seen after each advance. */
  async function flushesAt(timings: TimingOverrides | undefined, times: number[]) {
    const dir = mkdtempSync(join(tmpdir(), 'vault-timings-'))
    dirs.push(dir)
    const flush = vi.spyOn(FailedAuthLog.prototype, 'flush')
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const running = await startVault({
      encryptionKey: randomBytes(32),
      jwtSecret: randomBytes(32),
      dbUrl: `sqlite://${join(dir, 'vault.db')}`,
      host: '127.0.0.1',
      port: 0,
      dev: true,
      behindProxy: false,
      timings,
    })
    const seen: number[] = []
    try {
      for (const ms of times) {
        await vi.advanceTimersByTimeAsync(ms)
        seen.push(flush.mock.calls.length)
      }
    } finally {
      await running.close()
    }
    return seen
  }

  it('happens every minute by default', async () => {
    expect(await flushesAt(undefined, [59_999, 1])).toEqual([0, 1])
  })

  it('happens at the injected interval', async () => {
    expect(await flushesAt({ failedAuthFlushMs: 100 }, [99, 1, 100])).toEqual([0, 1, 2])
  })
})
