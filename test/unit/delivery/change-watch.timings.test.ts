/**
 * The clocks of --watch (issue 37): the feed's reconnect backoff, its silence bound, the connect wait
 * before the work starts and the debounce of changes are options with production defaults
 * (defaultWatchTimings), and an injected value is the one used. Against a tiny real vault whose feed
 * fails (503), never answers, or opens a stream (`ready`, maybe a change of A) and then stays silent.
 */
import type { ServerResponse } from 'node:http'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { followChanges } from '../../../src/client/events.js'
import { defaultFollowTimings } from '../../../src/client/follow-timings.js'
import { defaultWatchTimings, resolveWatchTimings, watchChanges } from '../../../src/delivery/change-watch.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'
import { sendJson, startTinyServer, type TinyServer } from '../../helpers/tiny-server.js'

let home: TempHome
let server: TinyServer
/** What the feed's requests get: a 503, no answer at all, or a stream that goes silent. */
let feedAnswer: 'unavailable' | 'never' | 'stream'
/** Whether the stream names a change of A right after `ready`. */
let withChange: boolean
/** Requests the tiny vault received (the first comes after the connect wait's timer is set). */
let requestsSeen = 0
const streams: ServerResponse[] = []
/** The real setTimeout, for waiting on real I/O while the timers are fake. */
const realSetTimeout = globalThis.setTimeout

/** Waits (in real time, bounded) until `check` holds. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((resolve) => realSetTimeout(resolve, 10))
  }
}

const change = `id: 2\nevent: secret\ndata: {"name":"A","version":2,"change":"updated","at":"2026-01-01T00:00:00Z"}\n\n`

beforeEach(async () => {
  home = createTempHome()
  for (const [name, value] of Object.entries(home.env)) vi.stubEnv(name, value)
  feedAnswer = 'unavailable'
  withChange = false
  requestsSeen = 0
  server = await startTinyServer((request, response) => {
    requestsSeen++
    if (request.url === '/api/v1/auth/token')
      return sendJson(response, 200, { access_token: 'token-1', token_type: 'Bearer', expires_in: 900 })
    if (feedAnswer === 'unavailable')
      return sendJson(response, 503, { error: { code: 'unavailable', message: 'try later' } })
    if (feedAnswer === 'stream') {
      streams.push(response)
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      // one write: the change reaches the client in the chunk that says the stream is ready
      response.write(`id: 1\nevent: ready\ndata: {"environment":"dev"}\n\n${withChange ? change : ''}`)
    }
  })
})
afterEach(async () => {
  vi.unstubAllEnvs()
  vi.useRealTimers()
  for (const stream of streams.splice(0)) stream.destroy()
  await server.close()
  home.cleanup()
})

const settings = () => ({ domain: server.url, clientId: 'cid', clientSecret: 'secret', insecure: false })

/** The delay the first "reconnecting in X s" line announces, in seconds. */
async function firstReconnectDelay(backoff?: { initialMs: number; maxMs: number }): Promise<number> {
  const stop = new AbortController()
  const notes: string[] = []
  await followChanges(settings(), {
    environment: 'dev',
    signal: stop.signal,
    onChange: () => undefined,
    backoff,
    note: (line) => {
      notes.push(line)
      stop.abort()
    },
  })
  const [, seconds] = /reconnecting in ([\d.]+) s/.exec(notes[0] ?? '') ?? []
  return Number(seconds)
}

describe('the change feed client', () => {
  it('waits 0.5 s (±20%) before its first reconnect by default', async () => {
    expect(defaultFollowTimings).toEqual({ backoff: { initialMs: 500, maxMs: 30_000 }, silenceMs: 45_000 })
    const delay = await firstReconnectDelay()
    expect(delay).toBeGreaterThanOrEqual(0.4)
    expect(delay).toBeLessThanOrEqual(0.6)
  })

  it('uses an injected backoff', async () => {
    expect(await firstReconnectDelay({ initialMs: 20, maxMs: 20 })).toBe(0)
  })
})

describe('the change feed client on a silent stream', () => {
  const feedRequests = () => server.requests.filter((request) => request.url.startsWith('/api/v1/events'))

  /** Follows a stream that goes silent; `drive` runs once it is ready. */
  async function follow(
    options: { silenceMs?: number },
    drive: (ready: () => number, notes: string[]) => Promise<void>,
  ) {
    feedAnswer = 'stream'
    const stop = new AbortController()
    let ready = 0
    const notes: string[] = []
    const following = followChanges(settings(), {
      environment: 'dev',
      signal: stop.signal,
      onChange: () => undefined,
      onReady: () => void ready++,
      note: (line) => void notes.push(line),
      backoff: { initialMs: 10, maxMs: 10 },
      ...options,
    })
    await until(() => ready === 1)
    await drive(() => ready, notes)
    stop.abort()
    await following
    return notes
  }

  it('reconnects after 45 s without a byte by default', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const notes = await follow({}, async (ready, notes) => {
      await vi.advanceTimersByTimeAsync(44_900)
      // (real time for the socket's close, had the silence bound ended the stream)
      await new Promise((resolve) => realSetTimeout(resolve, 100))
      expect(notes).toEqual([])
      expect(feedRequests()).toHaveLength(1)
      await vi.advanceTimersByTimeAsync(100)
      await until(() => notes.length > 0)
      await vi.advanceTimersByTimeAsync(20)
      await until(() => ready() === 2)
    })
    expect(notes[0]).toMatch(/connection lost; reconnecting/)
    expect(feedRequests()).toHaveLength(2)
  })

  it('reconnects after the injected silence', async () => {
    const started = performance.now()
    await follow({ silenceMs: 100 }, async (ready) => until(() => ready() === 2))
    expect(performance.now() - started).toBeLessThan(5000)
    expect(feedRequests().length).toBeGreaterThanOrEqual(2)
  })
})

describe('--watch', () => {
  it('has documented defaults, and an injected part leaves the others at theirs', () => {
    expect(defaultWatchTimings).toEqual({
      connectWaitMs: 5000,
      debounce: { quietMs: 1000, maxWaitMs: 5000 },
      backoff: { initialMs: 500, maxMs: 30_000 },
      silenceMs: 45_000,
    })
    expect(resolveWatchTimings()).toEqual(defaultWatchTimings)
    expect(resolveWatchTimings({ connectWaitMs: 10 })).toEqual({ ...defaultWatchTimings, connectWaitMs: 10 })
  })

  /** Runs a watcher against a feed that never answers; resolves with the notes once the work started. */
  async function startedAfter(timings: Parameters<typeof resolveWatchTimings>[0], advance?: number[]) {
    feedAnswer = 'never'
    const notes: string[] = []
    let started = false
    const watching = watchChanges(
      { settings: settings(), environment: 'dev', note: (line) => notes.push(line), timings },
      async () => ({
        run: async () => void (started = true),
        stopped: () => undefined,
        onChanges: async () => undefined,
      }),
    )
    const seen: boolean[] = []
    // fake time moves only once the wait's timer exists (set in the tick that sends the first request)
    if (advance) await until(() => requestsSeen > 0)
    for (const ms of advance ?? []) {
      await vi.advanceTimersByTimeAsync(ms)
      seen.push(started)
    }
    await watching
    return { notes, seen }
  }

  it('starts the work after the feed could not connect within 5 s by default', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { notes, seen } = await startedAfter(undefined, [4_900, 200])
    expect(seen).toEqual([false, true])
    expect(notes.join('\n')).toMatch(/the change feed is not connected yet/)
  })

  /** Watches a stream that names a change of A at once; `drive` runs as the work. */
  async function batchesOf(
    timings: Parameters<typeof resolveWatchTimings>[0],
    drive: (batches: string[][]) => Promise<unknown>,
  ) {
    feedAnswer = 'stream'
    withChange = true
    const batches: string[][] = []
    const notes: string[] = []
    await watchChanges(
      { settings: settings(), environment: 'dev', note: (line) => void notes.push(line), timings },
      async () => ({
        run: async () => void (await drive(batches)),
        stopped: () => undefined,
        onChanges: async (names) => void batches.push(names),
      }),
    )
    return batches
  }

  /** The number of batches handed over after each fake advance, with the debounce `timings` give. */
  async function batchesAfter(timings: Parameters<typeof resolveWatchTimings>[0], advances: number[]) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const seen: number[] = []
    const batches = await batchesOf(timings, async (batches) => {
      for (const ms of advances) {
        await vi.advanceTimersByTimeAsync(ms)
        seen.push(batches.length)
      }
    })
    expect(batches).toEqual([['A']])
    return seen
  }

  it('hands a change over after 1 s of quiet by default', async () => {
    expect(await batchesAfter(undefined, [999, 1])).toEqual([0, 1])
  })

  it('hands a change over after the injected quiet period', async () => {
    expect(await batchesAfter({ debounce: { quietMs: 10, maxWaitMs: 50 } }, [9, 1])).toEqual([0, 1])
  })

  it('uses an injected connect wait', async () => {
    const started = performance.now()
    const { notes } = await startedAfter({ connectWaitMs: 50 })
    expect(performance.now() - started).toBeLessThan(3000)
    expect(notes.join('\n')).toMatch(/the change feed is not connected yet/)
  })
})
