/**
 * The HTTP transport of the vault client: base URL, an overall timeout per attempt, retries of
 * idempotent requests (network errors, 408/502/503/504) and of any request refused with 429 or never
 * delivered (ECONNREFUSED), honouring Retry-After up to a limit, and the mapping of failures to the
 * typed errors of src/errors.ts. A redirect is never followed: it is refused (VaultAnswerError), so a
 * request (its token, client secret or password) only ever goes to VAULT_DOMAIN. Debug lines (DEBUG=vault* or *) name the method, path and status
 * only: never headers or bodies.
 */
import { UnreachableError, UsageError } from '../errors.js'
import { httpStatusError, isGatewayFailure } from './http-errors.js'
import { NetworkError, sendOnce, type RawResponse } from './http-send.js'
import { loopbackOnlyLookup, notLoopbackCode } from './loopback.js'
import { redirectError } from './vault-answer.js'

export { httpStatusError } from './http-errors.js'

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface HttpRequest {
  method: HttpMethod
  /** Path below the base URL, e.g. `api/v1/secrets/NAME`. */
  path: string
  searchParams?: Record<string, string | undefined>
  json?: unknown
  form?: Record<string, string>
  headers?: Record<string, string>
  bearer?: string
  /** The longest answer body read, in bytes (default 1 MiB; a secrets list asks for 64 MiB). */
  maxBodyBytes?: number
}

export interface HttpResponse<T> {
  status: number
  body: T
  headers: Record<string, string | string[] | undefined>
}

export interface HttpClientOptions {
  baseUrl: URL
  /** Milliseconds for each attempt (default 30 s). */
  timeoutMs?: number
  /** Retries after the first attempt (default 2). */
  retries?: number
  /**
   * Retry a connection that nothing accepted (ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EAI_AGAIN) or
   * a gateway's 502/503/504 that is not the vault's own JSON error (default true). `--fallback` turns
   * it off: an unreachable vault fails at once so the offline copy is used promptly, while a slow
   * vault that answers, or a vault that answers 503 itself, still gets its timeout and retries.
   */
  retryUnreachable?: boolean
  /** Longest Retry-After honoured, in milliseconds (default 30 s); a longer one fails at once. */
  maxRetryAfterMs?: number
  /** The first retry's wait in milliseconds, doubled for each later one up to 10x (default 1 s; tests give less). */
  backoffBaseMs?: number
  /** Connect only to loopback addresses of the host's resolution (plain http:// to `*.localhost`). */
  loopbackOnly?: boolean
  /** The resolver behind `loopbackOnly` (tests); dns.lookup by default. */
  resolve?: Parameters<typeof loopbackOnlyLookup>[0]
  /** Ends every request and retry wait at once when aborted (a --watch feed being stopped). */
  signal?: AbortSignal
}

/** A function that sends one request (with retries) and returns the parsed JSON body. */
export type HttpClient = <T>(request: HttpRequest) => Promise<HttpResponse<T>>

const idempotent = new Set<string>(['GET', 'HEAD', 'PUT', 'DELETE'])
const retriedStatuses = new Set([408, 429, 502, 503, 504])
/** Network failures that mean nothing is listening or no route exists (no server was reached). */
const unreachableCodes = new Set(['ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH', 'EAI_AGAIN'])
const retriedNetworkCodes = new Set([
  'ETIMEDOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
])

/** Builds the transport for one vault base URL. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const debug = debugEnabled(process.env.DEBUG)
  const retries = options.retries ?? 2
  const lookup = options.loopbackOnly ? loopbackOnlyLookup(options.resolve) : undefined
  return async <T>(request: HttpRequest): Promise<HttpResponse<T>> => {
    const url = requestUrl(options.baseUrl, request)
    const { headers, body } = encodeRequest(request)
    for (let attempt = 1; ; attempt++) {
      const started = Date.now()
      let outcome: RawResponse | NetworkError
      try {
        outcome = await sendOnce(url, {
          method: request.method,
          headers,
          body,
          timeoutMs: options.timeoutMs ?? 30_000,
          lookup,
          signal: options.signal,
          maxBodyBytes: request.maxBodyBytes,
          jsonLimits: true,
        })
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error
        outcome = error
      }
      if (debug)
        logDebug(request, url, outcome instanceof NetworkError ? outcome.reason : outcome.status, started)
      const giveUp =
        attempt > retries ||
        options.signal?.aborted === true ||
        (options.retryUnreachable === false && unreachable(outcome))
      const delay = giveUp
        ? undefined
        : retryDelay(request.method, outcome, {
            attempt,
            maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
            backoffBaseMs: options.backoffBaseMs ?? 1000,
          })
      if (delay !== undefined) {
        await pause(delay, options.signal)
        continue
      }
      if (outcome instanceof NetworkError && outcome.reason === notLoopbackCode) {
        throw new UsageError(
          `refusing plain http:// to ${options.baseUrl.hostname}: it does not resolve to a loopback address`,
          { hint: 'use https://, or pass --insecure if the network path is trusted' },
        )
      }
      if (outcome instanceof NetworkError) {
        throw new UnreachableError(`cannot reach the vault at ${options.baseUrl.origin}: ${outcome.reason}`, {
          hint: /CERT|SELF_SIGNED|TLS|SSL/.test(outcome.reason)
            ? "the server's TLS certificate is not trusted: add its CA with NODE_EXTRA_CA_CERTS=<file>"
            : 'check VAULT_DOMAIN and connectivity (vault doctor runs an HTTP HEAD on the vault URL)',
        })
      }
      if (outcome.status >= 400) throw httpStatusError(outcome.status, outcome.text, outcome.headers)
      if (outcome.status >= 300) {
        throw redirectError(`${request.method} ${url.pathname}`, outcome.status, outcome.headers.location)
      }
      return { status: outcome.status, body: parseBody<T>(outcome.text), headers: outcome.headers }
    }
  }
}

/**
 * No vault was reached: nothing accepted the connection, or a gateway in front of the vault answered
 * 502/503/504 in its own words (the vault behind it is down).
 */
function unreachable(outcome: RawResponse | NetworkError): boolean {
  if (outcome instanceof NetworkError) return unreachableCodes.has(outcome.reason)
  return isGatewayFailure(outcome.status, outcome.text)
}

/** Resolves after `ms`, or at once when `signal` aborts (the global timer: fake timers drive it). */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

/**
 * Milliseconds to wait before retrying, or undefined to give up: 429 and ECONNREFUSED for any method
 * (the server did not process the request), other retriable failures for idempotent methods only.
 */
function retryDelay(
  method: string,
  outcome: RawResponse | NetworkError,
  {
    attempt,
    maxRetryAfterMs,
    backoffBaseMs,
  }: { attempt: number; maxRetryAfterMs: number; backoffBaseMs: number },
): number | undefined {
  const backoff =
    Math.min(2 ** (attempt - 1) * backoffBaseMs, 10 * backoffBaseMs) +
    Math.floor(Math.random() * (backoffBaseMs / 10))
  if (outcome instanceof NetworkError) {
    if (!retriedNetworkCodes.has(outcome.reason)) return undefined
    return outcome.reason === 'ECONNREFUSED' || idempotent.has(method) ? backoff : undefined
  }
  if (!retriedStatuses.has(outcome.status)) return undefined
  if (outcome.status !== 429 && !idempotent.has(method)) return undefined
  const retryAfter = retryAfterMs(outcome.headers['retry-after'])
  if (retryAfter === undefined) return backoff
  return retryAfter > maxRetryAfterMs ? undefined : retryAfter
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or invalid. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (value === undefined || value.trim() === '') return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** True when DEBUG names vault (`vault`, `vault:*`, `*`). */
export function debugEnabled(value: string | undefined): boolean {
  if (!value) return false
  return value.split(/[\s,]+/).some((pattern) => pattern === '*' || /^vault(:|\*|$)/.test(pattern))
}

function requestUrl(baseUrl: URL, request: HttpRequest): URL {
  const base = baseUrl.pathname.endsWith('/') ? baseUrl : new URL(`${baseUrl.href}/`)
  const url = new URL(request.path.replace(/^\//, ''), base)
  for (const [name, value] of Object.entries(request.searchParams ?? {})) {
    if (value !== undefined) url.searchParams.set(name, value)
  }
  return url
}

function encodeRequest(request: HttpRequest): { headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'vault-cli' }
  if (request.bearer) headers.authorization = `Bearer ${request.bearer}`
  let body: string | undefined
  if (request.form) {
    body = new URLSearchParams(request.form).toString()
    headers['content-type'] = 'application/x-www-form-urlencoded'
  } else if (request.json !== undefined) {
    body = JSON.stringify(request.json)
    headers['content-type'] = 'application/json'
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
  return { headers: { ...headers, ...request.headers }, body }
}

function parseBody<T>(text: string): T {
  if (text === '') return undefined as T
  try {
    return JSON.parse(text) as T
  } catch {
    throw new UnreachableError('the vault answered with a body that is not JSON', {
      hint: 'check that VAULT_DOMAIN points at a vault server',
    })
  }
}

function logDebug(request: HttpRequest, url: URL, outcome: number | string, started: number): void {
  process.stderr.write(
    `vault:http ${request.method} ${url.pathname} -> ${outcome} (${Date.now() - started} ms)\n`,
  )
}
