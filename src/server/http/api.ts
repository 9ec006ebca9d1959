/**
 * The socket-free shape of one API exchange: an ApiRequest in (method, URL, headers, named path
 * parameters, the caller's origin and a bounded body reader), an ApiResponse out. Route handlers only
 * see these, so a unit test can call one without a server.
 */
import type { IncomingHttpHeaders } from 'node:http'

/** Where a request came from: the client address (after trusted proxies) and the request id. */
export interface Origin {
  ip: string
  requestId: string
}

export interface ApiRequest {
  method: string
  url: URL
  headers: IncomingHttpHeaders
  /** Named path parameters of the matched route, already percent-decoded. */
  params: Record<string, string>
  origin: Origin
  /** The request body, bounded by `maxBodyBytes` (413 beyond); read at most once. */
  body(): Promise<Buffer>
}

export interface ApiResponse {
  status: number
  headers?: Record<string, string>
  /** A JSON body, or a text body with its content type in `headers`. */
  json?: unknown
  text?: string
  /** A streamed body (Server-Sent Events): written with `headers` until it resolves or the client leaves. */
  stream?: (sink: StreamSink) => Promise<void>
}

/** Where a streamed body goes: text chunks, and a signal aborted once the client has gone. */
export interface StreamSink {
  write(text: string): void
  /** Resolves once the client has taken what was written (at once while little is buffered, or when it left). */
  drained(): Promise<void>
  signal: AbortSignal
}

/** A route handler: one request in, one response out. */
export type Handler = (request: ApiRequest) => Promise<ApiResponse>

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { status, json: body, headers }
}

/** The first value of a request header. */
export function header(request: Pick<ApiRequest, 'headers'>, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}
