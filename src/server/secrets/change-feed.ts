/**
 * The change feed as Server-Sent Events: polls the store for the environment's secret changes (so
 * every replica on one PostgreSQL sees every write) and writes each as an event whose id is the audit
 * sequence number, resumable with Last-Event-ID. Each poll re-authorises the bearer in its own
 * transaction, so a revoked token, a lost permission or an expired token ends the stream at once.
 * The next poll waits until the client has taken what was written, so a client that does not read
 * makes the server hold about one page of events, not the environment's history.
 * Comments every `heartbeatMs` keep idle connections (and proxies) alive.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { StreamSink } from '../http/api.js'
import type { SecretChange } from './event-rows.js'
import { ApiError } from '../http/http.js'
import { defaultTimings, type FeedTimings } from '../timings.js'

/** One SSE event; `data` is one line of JSON (JSON.stringify never writes a raw newline). */
export function sseEvent(event: string, id: number | undefined, data: unknown): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

/**
 * Streams changes after `startSeq` into `sink` until the client leaves or `poll` fails. `poll` runs
 * one authorised read of the changes after a sequence number; a refusal is sent as an `error` event
 * (its code and message only) before the stream ends.
 */
export async function streamChanges(
  sink: StreamSink,
  options: {
    startSeq: number
    environment: string
    poll: (afterSeq: number) => Promise<SecretChange[]>
    timing?: FeedTimings
  },
): Promise<void> {
  const timing = options.timing ?? defaultTimings.feed
  let last = options.startSeq
  let lastWrite = Date.now()
  sink.write(`retry: 2000\n${sseEvent('ready', last, { environment: options.environment })}`)
  while (!sink.signal.aborted) {
    await sink.drained()
    if (sink.signal.aborted) return
    let changes: SecretChange[]
    try {
      changes = await options.poll(last)
    } catch (error) {
      if (sink.signal.aborted) return
      const refusal =
        error instanceof ApiError
          ? { code: error.apiCode, message: error.message }
          : { code: 'internal_error', message: 'the change feed failed; reconnect' }
      sink.write(sseEvent('error', undefined, refusal))
      return
    }
    for (const { seq, ...change } of changes) {
      sink.write(sseEvent('secret', seq, change))
      last = seq
      lastWrite = Date.now()
    }
    if (changes.length > 0) continue
    if (Date.now() - lastWrite >= timing.heartbeatMs) {
      sink.write(': heartbeat\n\n')
      lastWrite = Date.now()
    }
    await sleep(timing.pollMs, undefined, { signal: sink.signal }).catch(() => undefined)
  }
}
