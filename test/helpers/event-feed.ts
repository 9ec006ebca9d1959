/**
 * Test helper: opens the vault's change feed with fetch and parses it with eventsource-parser, keeping
 * the raw text (for canary checks) and every event; `next` waits (bounded) for a matching event.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { TestVault } from './vault-server.js'

export interface OpenFeed {
  status: number
  contentType: string | null
  /** The raw bytes received so far, as text. */
  raw(): string
  events: EventSourceMessage[]
  /** The first event (after `from`) matching `test`, waiting up to `timeoutMs`. */
  next(test: (event: EventSourceMessage) => boolean, timeoutMs?: number): Promise<EventSourceMessage>
  /** Resolves when the server ends the stream (rejects after `timeoutMs` if it is still open). */
  ended(timeoutMs?: number): Promise<void>
  /** The JSON body of a refused request. */
  body?: unknown
  close(): void
}

/**
 * Opens `GET <url>/api/v1/events?environment=E` with a bearer and an optional Last-Event-ID (and
 * `&project=` for a human's token).
 */
export async function openFeed(
  url: string,
  token: string,
  environment: string,
  lastEventId?: string,
  project?: string,
): Promise<OpenFeed> {
  const stop = new AbortController()
  const query = new URLSearchParams({ environment, ...(project === undefined ? {} : { project }) })
  const response = await fetch(`${url}/api/v1/events?${query}`, {
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
    },
    signal: stop.signal,
  })
  let raw = ''
  const events: EventSourceMessage[] = []
  const waiters = new Set<() => void>()
  if (response.status !== 200) {
    const body = (await response.json()) as unknown
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      raw: () => '',
      events,
      body,
      next: () => Promise.reject(new Error('no stream')),
      ended: () => Promise.resolve(),
      close: () => stop.abort(),
    }
  }
  const parser = createParser({
    onEvent(event) {
      events.push(event)
      for (const wake of waiters) wake()
    },
  })
  const reading = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true })
        raw += text
        parser.feed(text)
      }
    } catch {
      // aborted by close()
    }
  })()
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    raw: () => raw,
    events,
    close: () => stop.abort(),
    ended(timeoutMs = 15_000) {
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the stream was still open after ${timeoutMs} ms`)),
          timeoutMs,
        )
      })
      return Promise.race([reading, late]).finally(() => clearTimeout(timer))
    },
    next(test, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(test)
          if (!found) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching event in ${timeoutMs} ms; got ${JSON.stringify(events)}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
  }
}

/** The JSON data of an event. */
export function dataOf(event: EventSourceMessage): Record<string, unknown> {
  return JSON.parse(event.data) as Record<string, unknown>
}

/** Waits (bounded) until `count` change-feed subscriptions are in the audit log (watchers connected). */
export async function waitForWatchers(server: TestVault, count = 1): Promise<void> {
  const { driver } = server.running.context
  for (let attempt = 0; attempt < 300; attempt++) {
    const [row] = await driver.transaction((tx) =>
      tx.all<{ n: number }>(`SELECT COUNT(*) AS n FROM audit_events WHERE action = 'secret.watch'`),
    )
    if (Number(row?.n) >= count) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the watcher never connected')
}
