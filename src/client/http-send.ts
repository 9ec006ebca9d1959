/**
 * One HTTP exchange over node:http / node:https (TLS verified): the request with an overall timeout,
 * the whole response body as text. Network failures surface as an error carrying a Node-style code
 * (ECONNREFUSED, ETIMEDOUT, ...). No retries and no interpretation of the status here.
 */
import { UnreachableError } from '../errors.js'
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
}

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
  return new Promise<RawResponse>((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: options.method,
        headers: options.headers,
        signal: options.signal
          ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal])
          : AbortSignal.timeout(options.timeoutMs),
        lookup: options.lookup,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', (error: NodeJS.ErrnoException) => reject(networkError(error)))
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(options.signal?.aborted ? new NetworkError('ABORTED') : networkError(error)),
    )
    request.end(options.body)
  })
}

function networkError(error: NodeJS.ErrnoException): NetworkError {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return new NetworkError('ETIMEDOUT')
  return new NetworkError(error.code ?? 'ERR_NETWORK')
}

/**
 * node:http / node:https as CommonJS objects: an ESM import of them enumerates every export, which
 * loads Node's bundled undici through lazy getters (about 20 ms of start-up for nothing).
 */
function loadBuiltin(id: 'node:http' | 'node:https'): Pick<typeof Http, 'request'> {
  return process.getBuiltinModule(id) as Pick<typeof Http, 'request'>
}
