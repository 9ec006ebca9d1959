/**
 * One HTTP exchange over node:http / node:https (TLS verified): the request with an overall timeout,
 * the whole response body as text, read up to a bound (an error answer at most 64 KiB, any other the
 * request's own bound): past it the exchange is abandoned while the body streams, so an endless answer
 * costs no more memory than the bound; with `jsonLimits`, a JSON body nested too deep or holding too
 * many objects is abandoned the same way, as soon as it crosses the bound. Network failures surface as an error carrying a Node-style code
 * (ECONNREFUSED, ETIMEDOUT, ...); a body still arriving at the deadline is an UnreachableError that
 * says so (not retried: the server is there, and answers too slowly). No retries and no
 * interpretation of the status here.
 */
import { UnreachableError } from '../errors.js'
import { jsonLimitGuard } from './json-limits.js'
import { answerError } from './vault-answer.js'
import type * as Http from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import type { LookupFunction } from 'node:net'

export interface RawResponse {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

export interface SendOptions {
  method: string
  headers?: Record<string, string>
  body?: string
  timeoutMs: number
  /** How the socket resolves the host (default: the system's). */
  lookup?: LookupFunction
  /** Abandons the request when aborted (it then fails as ABORTED). */
  signal?: AbortSignal
  /** The longest body of an answer below 400 read, in bytes (default 1 MiB). */
  maxBodyBytes?: number
  /** Refuse a body past the JSON limits (json-limits.ts) as it streams, not after. */
  jsonLimits?: boolean
}

/** The longest body of an error answer (400 and above) read: the vault's are a line of JSON. */
export const maxErrorBodyBytes = 64 * 1024
/** The longest body of any other answer, unless the request names its own bound. */
export const defaultMaxBodyBytes = 1024 * 1024

/** A network-level failure (no HTTP answer); `reason` is the Node-style code (ECONNREFUSED, ETIMEDOUT). */
export class NetworkError extends UnreachableError {
  override name = 'NetworkError'
  override readonly code: string = 'ERR_NETWORK'
  readonly reason: string

  constructor(reason: string) {
    super(`request failed: ${reason}`)
    this.reason = reason
  }
}

/** Sends one request and resolves with the status, headers and body text. */
export async function sendOnce(url: URL, options: SendOptions): Promise<RawResponse> {
  const transport = url.protocol === 'https:' ? loadBuiltin('node:https') : loadBuiltin('node:http')
  const deadline = AbortSignal.timeout(options.timeoutMs)
  return new Promise<RawResponse>((resolve, reject) => {
    let answering = false
    const failed = (error: NodeJS.ErrnoException) => {
      if (options.signal?.aborted) return reject(new NetworkError('ABORTED'))
      if (!answering || !deadline.aborted) return reject(networkError(error))
      reject(
        new UnreachableError(
          `the vault at ${url.origin} began answering ${options.method} ${url.pathname} but did not finish within ${options.timeoutMs / 1000} s`,
          { hint: 'VAULT_HTTP_TIMEOUT sets the seconds one request may take (default 30)' },
        ),
      )
    }
    const request = transport.request(
      url,
      {
        method: options.method,
        headers: options.headers,
        signal: options.signal ? AbortSignal.any([deadline, options.signal]) : deadline,
        lookup: options.lookup,
      },
      (response) => {
        answering = true
        const status = response.statusCode ?? 0
        const limit = status >= 400 ? maxErrorBodyBytes : (options.maxBodyBytes ?? defaultMaxBodyBytes)
        const chunks: Buffer[] = []
        const structure = options.jsonLimits ? jsonLimitGuard() : undefined
        let size = 0
        response.on('data', (chunk: Buffer) => {
          size += chunk.length
          const problem = size > limit ? `its body is larger than ${bytes(limit)}` : structure?.(chunk)
          if (problem === undefined) return void chunks.push(chunk)
          chunks.length = 0
          reject(answerError(`${options.method} ${url.pathname}`, problem))
          request.destroy()
        })
        response.on('error', failed)
        response.on('end', () =>
          resolve({ status, headers: response.headers, text: joined(chunks).toString('utf8') }),
        )
      },
    )
    request.on('error', failed)
    request.end(options.body)
  })
}

/** The chunks as one Buffer, emptying the list so they can be freed while the text is decoded. */
function joined(chunks: Buffer[]): Buffer {
  const body = Buffer.concat(chunks)
  chunks.length = 0
  return body
}

/** `limit` bytes for a message: `64 KiB`, `1 MiB`. */
function bytes(limit: number): string {
  return limit >= 1024 * 1024 ? `${limit / (1024 * 1024)} MiB` : `${limit / 1024} KiB`
}

function networkError(error: NodeJS.ErrnoException): NetworkError {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return new NetworkError('ETIMEDOUT')
  return new NetworkError(error.code ?? 'ERR_NETWORK')
}

/**
 * node:http / node:https as CommonJS objects: an ESM import of them enumerates every export, which
 * loads Node's bundled undici through lazy getters (start-up time for nothing: docs/cli-performance.md).
 */
function loadBuiltin(id: 'node:http' | 'node:https'): Pick<typeof Http, 'request'> {
  return process.getBuiltinModule(id) as Pick<typeof Http, 'request'>
}
