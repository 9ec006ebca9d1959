/**
 * The client of the vault's change feed (`GET /api/v1/events`, Server-Sent Events parsed by
 * eventsource-parser): follows an environment's changes, reconnecting with exponential backoff and
 * jitter, resuming after the last event id so no change is lost across a reconnect or a server
 * restart. A refusal that retrying cannot fix (403, 404, 400) ends the follow with its typed error;
 * a 401 or an expired token logs in again. A stream silent for three heartbeats is reconnected.
 */
import type * as Http from 'node:http'
import { createParser } from 'eventsource-parser'
import { IntegrityError, UnreachableError, VaultError } from '../errors.js'
import { feedRefusalAnswer, secretChangeAnswer, type SecretChange } from './api-answers.js'
import { defaultFollowTimings, type FollowTimings } from './follow-timings.js'
import { httpStatusError } from './http-errors.js'
import { maxErrorBodyBytes } from './http-send.js'
import { jsonLimitExceeded } from './json-limits.js'
import { createSession, type VaultSession } from './session.js'
import { vaultBaseUrl, type ConnectionSettings } from './settings.js'
import { answerError, decodeAnswer, redirectError, shownText, type Decoder } from './vault-answer.js'

export type { SecretChange } from './api-answers.js'

export interface FollowOptions {
  environment?: string
  /** Ends the follow (resolves) when aborted. */
  signal: AbortSignal
  onChange: (change: SecretChange) => void
  /** Called on each `ready` event: the stream is open and every later change will be delivered. */
  onReady?: () => void
  /** Called on each attempt that failed because no vault answered (refused, no route, a gateway's 502). */
  onUnreachable?: () => void
  /** A line for the user: lost connection, reconnected. */
  note?: (line: string) => void
  /** The reconnect backoff (default defaultFollowTimings.backoff, follow-timings.ts). */
  backoff?: FollowTimings['backoff']
  /** Reconnect when nothing (not even a heartbeat) arrived for this long (default 45 s). */
  silenceMs?: number
}

/**
 * The longest event of the feed, in characters (its lines up to the blank line that ends it). A change
 * event is about 150 (a name of at most 256 characters, a version, a kind, a time) and an error event
 * a line: a megabyte is thousands of times either, and is all the memory a feed that never ends its
 * event (or its line) can take.
 */
const maxEventBytes = 1024 * 1024

/**
 * A check fed each chunk of the stream: false once more than `limit` characters arrived since the
 * last blank line (the end of an event, or of a heartbeat comment), however the lines are split.
 */
function eventSizeGuard(limit: number): (chunk: string) => boolean {
  let size = 0
  let lineStart = true
  let afterCr = false
  return (chunk) => {
    for (let index = 0; index < chunk.length; index++) {
      const code = chunk.charCodeAt(index)
      if (code === 0x0a && afterCr) {
        afterCr = false
        continue
      }
      afterCr = code === 0x0d
      if (code === 0x0a || code === 0x0d) {
        if (lineStart) size = 0
        lineStart = true
      } else {
        lineStart = false
        if (++size > limit) return false
      }
    }
    return true
  }
}

/**
 * The most different secrets one follow may name. A real environment holds hundreds; a feed naming
 * thousands of made-up ones would otherwise grow every batch of changes, and every line naming them,
 * without limit.
 */
const maxFeedNames = 10_000

/** Where a follow is: the last event id seen, and the names its events have named. */
interface FeedCursor {
  lastEventId?: string
  names: Set<string>
}

/** The change, once its name is counted among the follow's (a VaultAnswerError past maxFeedNames). */
function newName(cursor: FeedCursor, change: SecretChange): SecretChange {
  cursor.names.add(change.name)
  if (cursor.names.size > maxFeedNames)
    throw answerError('GET /api/v1/events', `its events name more than ${maxFeedNames} different secrets`)
  return change
}

/** Refusals that retrying cannot fix. */
const fatalStatuses = new Set([400, 403, 404])

/** Follows the environment's changes until `signal` aborts; rejects on a refusal retrying cannot fix. */
export async function followChanges(settings: ConnectionSettings, options: FollowOptions): Promise<void> {
  // the feed has its own backoff: its requests are not retried, and stopping abandons them at once
  const session = createSession(settings, process.env, { retryUnreachable: false, signal: options.signal })
  const url = new URL('api/v1/events', vaultBaseUrl(settings))
  if (options.environment) url.searchParams.set('environment', options.environment)
  const { initialMs, maxMs } = options.backoff ?? defaultFollowTimings.backoff
  const cursor: FeedCursor = { names: new Set() }
  let failures = 0
  while (!options.signal.aborted) {
    try {
      if (await streamOnce(session, url, cursor, options)) failures = 0
    } catch (error) {
      if (options.signal.aborted) return
      const status = (error as { status?: number }).status
      if (status !== undefined && fatalStatuses.has(status)) throw error
      // an answer no vault gives (a name outside the rule, a malformed event): reconnecting gets more
      if (error instanceof IntegrityError) throw error
      if (status === 401) await session.login().catch(() => undefined)
      if (unreachable(error)) options.onUnreachable?.()
    }
    if (options.signal.aborted) return
    failures++
    const delay = Math.min(initialMs * 2 ** (failures - 1), maxMs) * (0.8 + Math.random() * 0.4)
    options.note?.(`change feed: connection lost; reconnecting in ${(delay / 1000).toFixed(1)} s`)
    await new Promise<void>((resolve) => {
      if (options.signal.aborted) return resolve()
      const timer = setTimeout(resolve, delay)
      options.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
    })
  }
}

/** No vault answered: the connection failed, the token exchange found no vault, or a gateway answered 5xx. */
function unreachable(error: unknown): boolean {
  return (error instanceof FeedError && error.status === undefined) || error instanceof UnreachableError
}

/** A failed connection attempt, with its HTTP status when the server answered. */
export class FeedError extends VaultError {
  override name = 'FeedError'
  override readonly code: string = 'ERR_CHANGE_FEED'
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message)
  }
}

/**
 * One connection, keeping `cursor` at the last event id seen: resolves when the stream ends (true when
 * it got as far as the `ready` event), rejects when it could not be opened or was refused.
 */
async function streamOnce(
  session: VaultSession,
  url: URL,
  cursor: FeedCursor,
  options: FollowOptions,
): Promise<boolean> {
  const bearer = await session.bearer()
  const transport = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http') as Pick<
    typeof Http,
    'request'
  >
  const silenceMs = options.silenceMs ?? defaultFollowTimings.silenceMs
  return new Promise((resolve, reject) => {
    let healthy = false
    let refusal: Error | undefined
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${bearer}` }
    if (cursor.lastEventId !== undefined) headers['last-event-id'] = cursor.lastEventId
    const request = transport.request(url, { method: 'GET', headers, signal: options.signal })
    let silence: NodeJS.Timeout | undefined
    const quiet = () => {
      clearTimeout(silence)
      silence = setTimeout(() => request.destroy(), silenceMs)
    }
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(silence)
      if (refusal) reject(refusal)
      else if (healthy || options.signal.aborted) resolve(healthy)
      else reject(new FeedError(`change feed: ${error.code ?? error.message}`))
    })
    request.on('response', (response) => {
      response.setEncoding('utf8')
      const status = response.statusCode ?? 0
      if (status >= 300 && status < 400) {
        response.resume()
        return reject(redirectError('GET /api/v1/events', status, response.headers.location))
      }
      if (status !== 200) {
        let body = ''
        response.on('data', (chunk: string) => {
          body += chunk
          if (body.length <= maxErrorBodyBytes) return
          body = body.slice(0, maxErrorBodyBytes)
          response.destroy()
        })
        response.on('close', () => reject(statusError(status, body, response.headers)))
        return
      }
      const bounded = eventSizeGuard(maxEventBytes)
      const parser = createParser({
        onEvent(event) {
          if (refusal) return
          try {
            if (event.event === 'secret')
              options.onChange(newName(cursor, eventData(event.data, secretChangeAnswer)))
            if (event.event === 'error') refusal = refusalOf(eventData(event.data, feedRefusalAnswer))
          } catch (error) {
            refusal = error as Error
            request.destroy()
            return
          }
          // the id goes back as the Last-Event-ID header: the vault's are sequence numbers
          if (event.id !== undefined && !/^\d{1,20}$/.test(event.id)) {
            refusal = answerError(
              'GET /api/v1/events',
              `an event id ${shownText(event.id)} that is not a number`,
            )
            return void request.destroy()
          }
          if (event.id !== undefined) cursor.lastEventId = event.id
          if (event.event === 'ready') {
            healthy = true
            options.onReady?.()
          }
        },
      })
      quiet()
      response.on('data', (chunk: string) => {
        quiet()
        if (refusal) return
        if (!bounded(chunk)) {
          refusal = answerError(
            'GET /api/v1/events',
            `an event is larger than ${maxEventBytes / 1024 / 1024} MiB`,
          )
          return void request.destroy()
        }
        parser.feed(chunk)
      })
      response.on('close', () => {
        clearTimeout(silence)
        if (refusal) reject(refusal)
        else resolve(healthy)
      })
    })
    request.end()
  })
}

/** The typed error of an HTTP refusal, carrying its status. */
function statusError(status: number, body: string, headers: Http.IncomingHttpHeaders = {}): Error {
  return Object.assign(httpStatusError(status, body, headers), { status })
}

/** The JSON data of a feed event, decoded (a VaultAnswerError when it is not JSON or not the shape). */
function eventData<T>(data: string, decoder: Decoder<T>): T {
  const tooLarge = jsonLimitExceeded(data)
  if (tooLarge) throw answerError('GET /api/v1/events', `an event: ${tooLarge}`)
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  } catch {
    throw answerError('GET /api/v1/events', 'an event whose data is not JSON')
  }
  return decodeAnswer('GET /api/v1/events', parsed, decoder)
}

/** The refusal an `error` event carries (the server's code and message), as an HTTP-like error. */
function refusalOf(refusal: { code?: string; message?: string }): Error {
  const statuses: Record<string, number> = { forbidden: 403, not_found: 404, unauthorized: 401 }
  return statusError(statuses[refusal.code ?? ''] ?? 503, JSON.stringify({ error: refusal }))
}
