/**
 * Issue 18 item 1: hostile requests to the change feed. Each row is one attack and the property
 * checked: refused with the status given, NO stream opened (no `secret.watch` subscription audited)
 * and no value in the answer. A value crafted to look like SSE framing is never streamed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { adminRevokeIdentity } from '../../../src/server/admin.js'
import { streamCaps } from '../../../src/server/routes/events.js'
import { deploymentApi, startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { dataOf, openFeed } from '../../helpers/event-feed.js'
import { send } from './client.js'

const canary = 'CANARY-adv-feed-91f3'

describe('the change feed under attack', () => {
  let vault: TestVault
  let token: string
  let otherProjectToken: string
  let otherProjectId: string

  const subscriptions = async () => {
    const [row] = await vault.running.context.driver.transaction((tx) =>
      tx.all<{ n: number }>(`SELECT COUNT(*) AS n FROM audit_events WHERE action = 'secret.watch'`),
    )
    return Number(row!.n)
  }

  beforeAll(async () => {
    // the feed polls every 50 ms instead of every second: a change is streamed without a second's wait
    vault = await startVaultServer({ timings: { feed: { pollMs: 50 } } })
    token = await vault.token(vault.deploymentCredentials)
    const other = await vault.createProject('other-feed')
    otherProjectId = other.projectId
    otherProjectToken = await vault.token(other.credentials)
    await deploymentApi(vault, `${process.env.TMPDIR ?? '/tmp'}/adv-feed-${process.pid}`).putSecret(
      'SEEN',
      canary,
      'dev',
    )
  })
  afterAll(() => vault?.stop())

  const rows: { attack: string; path: string; headers: () => Record<string, string>; status: number }[] = [
    { attack: 'no bearer token', path: '/api/v1/events?environment=dev', headers: () => ({}), status: 401 },
    {
      attack: 'a forged bearer token',
      path: '/api/v1/events?environment=dev',
      headers: () => ({ authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' }),
      status: 401,
    },
    {
      attack: 'a negative Last-Event-ID',
      path: '/api/v1/events?environment=dev',
      headers: () => ({ authorization: `Bearer ${token}`, 'last-event-id': '-1' }),
      status: 400,
    },
    {
      attack: 'a Last-Event-ID in exponent form',
      path: '/api/v1/events?environment=dev',
      headers: () => ({ authorization: `Bearer ${token}`, 'last-event-id': '1e9' }),
      status: 400,
    },
    {
      attack: 'a Last-Event-ID beyond 2^53',
      path: '/api/v1/events?environment=dev',
      headers: () => ({ authorization: `Bearer ${token}`, 'last-event-id': '99999999999999999999' }),
      status: 400,
    },
    {
      attack: 'a hex Last-Event-ID',
      path: '/api/v1/events?environment=dev',
      headers: () => ({ authorization: `Bearer ${token}`, 'last-event-id': '0x10' }),
      status: 400,
    },
    {
      attack: 'an environment that does not exist',
      path: '/api/v1/events?environment=nope',
      headers: () => ({ authorization: `Bearer ${token}` }),
      status: 404,
    },
    {
      attack: "another project's token naming this project",
      path: '/api/v1/events?environment=dev&project=PROJECT',
      headers: () => ({ authorization: `Bearer ${otherProjectToken}` }),
      status: 403,
    },
    {
      attack: "this project's token naming another project",
      path: '/api/v1/events?environment=dev&project=OTHER',
      headers: () => ({ authorization: `Bearer ${token}` }),
      status: 403,
    },
    {
      attack: 'a POST to the feed',
      path: '/api/v1/events?environment=dev',
      headers: () => ({ authorization: `Bearer ${token}` }),
      status: 405,
    },
  ]

  it.each(rows)('$attack: $status, no stream opened, no value', async ({ attack, path, headers, status }) => {
    const before = await subscriptions()
    const answer = await send(vault, {
      method: attack.startsWith('a POST') ? 'POST' : 'GET',
      path: path.replace('PROJECT', vault.projectId).replace('OTHER', otherProjectId),
      headers: headers(),
    })
    expect(answer.status).toBe(status)
    expect(String(answer.headers['content-type'])).not.toMatch(/event-stream/)
    expect(answer.body).not.toContain(canary)
    expect(await subscriptions()).toBe(before)
  })

  it('streams refused for the per-identity cap are not audited as subscriptions', async () => {
    const watcher = await vault.createIdentity('feed-cap-audit', { dev: ['read'] })
    const bearer = await vault.token(watcher)
    const before = await subscriptions()
    const feeds = []
    try {
      for (let index = 0; index < streamCaps.perIdentity + 3; index++)
        feeds.push(await openFeed(vault.url, bearer, 'dev'))
      expect(feeds.filter((feed) => feed.status === 200)).toHaveLength(streamCaps.perIdentity)
      expect(feeds.filter((feed) => feed.status === 429)).toHaveLength(3)
      expect((await subscriptions()) - before).toBe(streamCaps.perIdentity)
    } finally {
      for (const feed of feeds) feed.close()
    }
  })

  it('a value holding SSE framing is never streamed: one event, its name and version only', async () => {
    const feed = await openFeed(vault.url, token, 'dev')
    try {
      await feed.next((event) => event.event === 'ready')
      const framing = `${canary}\n\nid: 999999\nevent: secret\ndata: {"name":"FORGED","version":1}\n\n`
      await deploymentApi(vault, `${process.env.TMPDIR ?? '/tmp'}/adv-feed2-${process.pid}`).putSecret(
        'FRAMED',
        framing,
        'dev',
      )
      const event = await feed.next((candidate) => candidate.event === 'secret')
      expect(dataOf(event)).toMatchObject({ name: 'FRAMED', version: 1, change: 'created' })
      expect(feed.raw()).not.toContain(canary)
      expect(feed.raw()).not.toContain('FORGED')
      expect(feed.events.filter((candidate) => candidate.event === 'secret')).toHaveLength(1)
    } finally {
      feed.close()
    }
  })
})

describe('the change feed when the right to read ends mid-stream', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer({ timings: { feed: { pollMs: 50 } } })
  })
  afterAll(() => vault?.stop())
  afterEach(() => void vi.useRealTimers())

  const admin = () => ({ dbUrl: vault.dbUrl, encryptionKey: vault.encryptionKey })
  const endings: [string, (ids: { name: string; token: string }) => Promise<void>][] = [
    [
      'the identity is revoked',
      async ({ name }) => void (await adminRevokeIdentity(admin(), vault.projectId, name)),
    ],
    [
      'the token is revoked',
      async ({ token }) =>
        void (await send(vault, {
          method: 'POST',
          path: '/api/v1/auth/revoke',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token }).toString(),
        })),
    ],
    [
      'the token expires',
      // the vault runs in this process: its clock (Date only, not its timers) moves past the token's life
      async () => {
        vi.useFakeTimers({ toFake: ['Date'] })
        vi.setSystemTime(Date.now() + (vault.running.context.limits.tokenTtlSeconds + 1) * 1000)
      },
    ],
  ]

  it('a human signs out: no later change is streamed and the stream ends', async () => {
    const signedIn = await send(vault, {
      method: 'POST',
      path: '/api/v1/auth/signin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'correct horse battery staple' }),
    })
    expect(signedIn.status).toBe(200)
    const token = (JSON.parse(signedIn.body) as { access_token: string }).access_token
    const feed = await openFeed(vault.url, token, 'dev', undefined, vault.projectId)
    try {
      expect(feed.status).toBe(200)
      await feed.next((event) => event.event === 'ready')
      const out = await send(vault, {
        method: 'POST',
        path: '/api/v1/auth/signout',
        headers: { authorization: `Bearer ${token}` },
      })
      expect(out.status).toBeLessThan(300)
      await deploymentApi(vault, `${process.env.TMPDIR ?? '/tmp'}/adv-feed-human-${process.pid}`).putSecret(
        'AFTER_SIGN_OUT',
        canary,
        'dev',
      )
      const error = await feed.next((event) => event.event === 'error', 5_000)
      expect(dataOf(error)).toMatchObject({ code: 'unauthorized' })
      await feed.ended(5_000)
      expect(feed.raw()).not.toContain('AFTER_SIGN_OUT')
      expect(feed.raw()).not.toContain(canary)
    } finally {
      feed.close()
    }
  })

  it.each(endings)('%s: no later change is streamed and the stream ends', async (label, end) => {
    const name = `feed-ends-${endings.findIndex(([each]) => each === label)}`
    const watcher = await vault.createIdentity(name, { dev: ['read'] })
    const token = await vault.token(watcher)
    const feed = await openFeed(vault.url, token, 'dev')
    try {
      await feed.next((event) => event.event === 'ready')
      await end({ name, token })
      const secret = `AFTER_END_${name.replace(/-/g, '_').toUpperCase()}`
      await deploymentApi(vault, `${process.env.TMPDIR ?? '/tmp'}/adv-feed-end-${process.pid}`).putSecret(
        secret,
        canary,
        'dev',
      )
      const error = await feed.next((event) => event.event === 'error', 5_000)
      expect(dataOf(error)).toMatchObject({ code: 'unauthorized' })
      await feed.ended(5_000)
      expect(feed.raw()).not.toContain(secret)
      expect(feed.raw()).not.toContain(canary)
    } finally {
      feed.close()
    }
  })
})
