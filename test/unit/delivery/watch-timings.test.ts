/**
 * The clocks of --watch (issue 37): the feed's reconnect backoff, its silence bound and the connect
 * wait before the work starts are options with production defaults (defaultWatchTimings), and an
 * injected value is the one used. Against a tiny real vault whose feed fails (503) or never answers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { followChanges } from '../../../src/client/events.js'
import { defaultFollowTimings } from '../../../src/client/follow-timings.js'
import { defaultWatchTimings, resolveWatchTimings, watchChanges } from '../../../src/delivery/change-watch.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'
import { sendJson, startTinyServer, type TinyServer } from '../client/tiny-server.js'

let home: TempHome
let server: TinyServer
/** What the feed's requests get: a 503, or no answer at all. */
let feedAnswer: 'unavailable' | 'never'

beforeEach(async () => {
  home = createTempHome()
  for (const [name, value] of Object.entries(home.env)) vi.stubEnv(name, value)
  feedAnswer = 'unavailable'
  server = await startTinyServer((request, response) => {
    if (request.url === '/api/v1/auth/token')
      return sendJson(response, 200, { access_token: 'token-1', token_type: 'Bearer', expires_in: 900 })
    if (feedAnswer === 'unavailable')
      return sendJson(response, 503, { error: { code: 'unavailable', message: 'try later' } })
  })
})
afterEach(async () => {
  vi.unstubAllEnvs()
  vi.useRealTimers()
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

  it('uses an injected connect wait', async () => {
    const started = performance.now()
    const { notes } = await startedAfter({ connectWaitMs: 50 })
    expect(performance.now() - started).toBeLessThan(3000)
    expect(notes.join('\n')).toMatch(/the change feed is not connected yet/)
  })
})
