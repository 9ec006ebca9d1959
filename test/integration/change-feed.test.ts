/**
 * The change feed (`GET /api/v1/events`) against a real server on SQLite and on PostgreSQL: names and
 * versions of created, updated, deleted and rolled-back secrets and never a value (canaries), resuming
 * from Last-Event-ID without a gap, refusal of an identity without read on the environment, the cap
 * on open streams, and two server processes on one PostgreSQL (written through one, seen through the
 * other).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultApi } from '../../src/client/vault-api.js'
import { streamCaps } from '../../src/server/routes/events.js'
import { createDatabase, postgresOrNull } from '../helpers/components.js'
import { dataOf, openFeed, type OpenFeed } from '../helpers/event-feed.js'
import {
  deploymentApi,
  spawnVaultProcess,
  startVaultServer,
  type TestVault,
} from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const adapters = [
  { adapter: 'sqlite', available: true },
  { adapter: 'postgres', available: postgres !== null },
]
const canary = 'CANARY-feed-5c2b-value'

describe.each(adapters)('the change feed on $adapter', ({ adapter, available }) => {
  let vault: TestVault
  let api: VaultApi
  let token: string
  const work = mkdtempSync(join(tmpdir(), 'vault-feed-'))
  const feeds: OpenFeed[] = []
  const open = async (environment: string, lastEventId?: string, bearer = token, url = vault.url) => {
    const feed = await openFeed(url, bearer, environment, lastEventId)
    feeds.push(feed)
    return feed
  }

  beforeAll(async () => {
    if (!available) return
    vault = await startVaultServer({
      dbUrl: adapter === 'postgres' ? await createDatabase(postgres!) : undefined,
      // the feed polls every 50 ms (1 s in production): each change is streamed without that wait
      timings: { feed: { pollMs: 50 } },
    })
    token = await vault.token(vault.deploymentCredentials)
    api = deploymentApi(vault, join(work, 'state'))
  })
  afterAll(async () => {
    for (const feed of feeds) feed.close()
    await vault?.stop()
    rmSync(work, { recursive: true, force: true })
  })

  it.skipIf(!available)('names and versions of every kind of change, never a value', async () => {
    const feed = await open('dev')
    expect(feed.status).toBe(200)
    expect(feed.contentType).toMatch(/^text\/event-stream/)
    await feed.next((event) => event.event === 'ready')
    await api.putSecret('FEED_CANARY', canary, 'dev')
    await api.patchSecret('FEED_CANARY', `${canary}-2`, 'dev')
    await api.rollback('FEED_CANARY', 1, 'dev')
    await api.deleteSecret('FEED_CANARY', 'dev')
    await api.putSecret('OTHER_ENV', canary, 'staging')
    await feed.next((event) => event.event === 'secret' && dataOf(event).change === 'deleted')
    const changes = feed.events.filter((event) => event.event === 'secret').map(dataOf)
    expect(changes.map(({ name, version, change }) => ({ name, version, change }))).toEqual([
      { name: 'FEED_CANARY', version: 1, change: 'created' },
      { name: 'FEED_CANARY', version: 2, change: 'updated' },
      { name: 'FEED_CANARY', version: 3, change: 'rolled_back' },
      { name: 'FEED_CANARY', version: 4, change: 'deleted' },
    ])
    const ids = feed.events.filter((event) => event.event === 'secret').map((event) => Number(event.id))
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(new Set(ids).size).toBe(ids.length)
    expect(feed.raw()).not.toContain('CANARY-feed')
    expect(feed.raw()).not.toContain('OTHER_ENV')
  })

  it.skipIf(!available)('resumes after Last-Event-ID with no gap and no repeat', async () => {
    const first = await open('dev')
    await first.next((event) => event.event === 'ready')
    await api.putSecret('RESUME_ONE', 'v', 'dev')
    const seen = await first.next((event) => dataOf(event).name === 'RESUME_ONE')
    first.close()
    await api.putSecret('RESUME_TWO', 'v', 'dev')
    await api.putSecret('RESUME_THREE', 'v', 'dev')
    const resumed = await open('dev', seen.id)
    await resumed.next((event) => dataOf(event).name === 'RESUME_THREE')
    const names = resumed.events
      .filter((event) => event.event === 'secret')
      .map((event) => dataOf(event).name)
    expect(names).toEqual(['RESUME_TWO', 'RESUME_THREE'])
    const bad = await open('dev', 'not-a-number')
    expect(bad.status).toBe(400)
  })

  it.skipIf(!available)(
    'refuses an identity without read on the environment (403, nothing streamed)',
    async () => {
      const stagingOnly = await vault.createIdentity('feed-staging-only', { staging: ['read'] })
      const bearer = await vault.token(stagingOnly)
      const refused = await open('dev', undefined, bearer)
      expect(refused.status).toBe(403)
      expect(refused.body).toMatchObject({ error: { code: 'forbidden' } })
      const allowed = await open('staging', undefined, bearer)
      expect(allowed.status).toBe(200)
      const anonymous = await open('dev', undefined, 'not-a-token')
      expect(anonymous.status).toBe(401)
    },
  )

  it.skipIf(!available)(
    'caps the open streams of one identity (429 beyond, a slot frees on close)',
    async () => {
      const capped = await vault.createIdentity('feed-capped', { dev: ['read'] })
      const bearer = await vault.token(capped)
      const streams: OpenFeed[] = []
      for (let index = 0; index < streamCaps.perIdentity; index++) {
        const feed = await open('dev', undefined, bearer)
        expect(feed.status).toBe(200)
        streams.push(feed)
      }
      const over = await open('dev', undefined, bearer)
      expect(over.status).toBe(429)
      expect(over.body).toMatchObject({ error: { code: 'too_many_streams' } })
      streams[0]!.close()
      let again: OpenFeed | undefined
      for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt++) {
        again = await open('dev', undefined, bearer)
        if (again.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(again?.status).toBe(200)
    },
  )

  // replicas exist only on PostgreSQL: the SQLite run has no such test (not a skipped one)
  const onPostgres = adapter === 'postgres' ? it.skipIf(!available) : () => undefined
  onPostgres(
    'two server processes on one PostgreSQL: written through one, seen through the other',
    async () => {
      const second = await spawnVaultProcess(vault)
      try {
        const feed = await open('dev', undefined, token, second.url)
        await feed.next((event) => event.event === 'ready')
        await api.putSecret('ACROSS_REPLICAS', canary, 'dev')
        const event = await feed.next((candidate) => dataOf(candidate).name === 'ACROSS_REPLICAS')
        expect(dataOf(event)).toMatchObject({ name: 'ACROSS_REPLICAS', version: 1, change: 'created' })
        expect(feed.raw()).not.toContain(canary)
        feed.close()
      } finally {
        await second.stop()
      }
    },
  )
})
