/**
 * HTTP plumbing of the vault API: the API error type and its JSON shape, bounded body reading with
 * strict UTF-8 (JSON, form), and writing an ApiResponse to a socket with the security headers every
 * answer carries.
 */
import { once } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { header, type ApiRequest, type ApiResponse } from './api.js'
import { VaultError } from '../../errors.js'

/**
 * An API failure: status, the snake_case `apiCode` of the JSON answer (`{ error: { code } }`) and a
 * one-line message that never holds a secret value. `code` is the family's `ERR_API`.
 */
export class ApiError extends VaultError {
  override name = 'ApiError'
  override readonly code: string = 'ERR_API'
  constructor(
    readonly status: number,
    readonly apiCode: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

/** The largest request body accepted, in bytes. */
export const maxBodyBytes = 256 * 1024

/** Reads a socket's body up to `maxBodyBytes` (413 beyond). */
export async function readBoundedBody(message: IncomingMessage): Promise<Buffer> {
  const declared = Number(message.headers['content-length'] ?? 0)
  if (declared > maxBodyBytes)
    throw new ApiError(413, 'value_too_large', `request body over ${maxBodyBytes} bytes`)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of message as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBodyBytes)
      throw new ApiError(413, 'value_too_large', `request body over ${maxBodyBytes} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** The body as text; a body that is not valid UTF-8 is a 400 (never silently replaced). */
export async function bodyText(request: ApiRequest): Promise<string> {
  const body = await request.body()
  try {
    return strictUtf8.decode(body)
  } catch {
    throw new ApiError(400, 'invalid_utf8', 'the request body is not valid UTF-8')
  }
}

function mediaType(request: ApiRequest): string {
  return (header(request, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase()
}

/**
 * Parses a JSON object body; malformed JSON is a 400 that does not echo the body. A JSON body sent as
 * text/plain or with curl's default form type (`curl -d '{"value":...}'`) is accepted as JSON.
 */
export async function readJsonObject(request: ApiRequest): Promise<Record<string, unknown>> {
  const type = mediaType(request)
  const lenient = ['', 'application/json', 'text/plain', 'application/x-www-form-urlencoded']
  if (!lenient.includes(type) && !type.endsWith('+json')) {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as application/json')
  }
  const text = await bodyText(request)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new ApiError(400, 'malformed_json', 'the request body is not valid JSON')
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'bad_request', 'the request body must be a JSON object')
  }
  return parsed as Record<string, unknown>
}

/** Parses a form or JSON body into string fields (token endpoints accept both). */
export async function readFormOrJson(request: ApiRequest): Promise<Record<string, string>> {
  const type = mediaType(request)
  const body = await bodyText(request)
  if (body === '') return {}
  if (type === 'application/json') {
    try {
      const parsed = JSON.parse(body) as Record<string, unknown>
      return Object.fromEntries(
        Object.entries(parsed ?? {})
          .filter(([, value]) => typeof value === 'string' || typeof value === 'number')
          .map(([key, value]) => [key, String(value)]),
      )
    } catch {
      throw new ApiError(400, 'invalid_request', 'the request body is not valid JSON')
    }
  }
  return Object.fromEntries(new URLSearchParams(body))
}

/** The ApiResponse of an ApiError. */
export function errorResponse(error: ApiError): ApiResponse {
  return {
    status: error.status,
    json: { error: { code: error.apiCode, message: error.message } },
    headers: error.headers,
  }
}

/**
 * Writes an ApiResponse: JSON with `cache-control: no-store`, and on every answer
 * `x-content-type-options: nosniff` (plus HSTS when served over TLS). A HEAD gets the headers only.
 */
export function writeResponse(
  response: ServerResponse,
  answer: ApiResponse,
  options: { head: boolean; tls: boolean },
): void {
  if (answer.stream) return writeStream(response, answer, options)
  const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? '')
  const headers: Record<string, string | number> = {
    'x-content-type-options': 'nosniff',
    ...(options.tls ? { 'strict-transport-security': 'max-age=31536000' } : {}),
    ...(answer.json !== undefined
      ? { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }
      : {}),
    ...(answer.status === 204 ? {} : { 'content-length': Buffer.byteLength(body) }),
    ...answer.headers,
  }
  response.writeHead(answer.status, headers)
  response.end(options.head || answer.status === 204 ? undefined : body)
}

/** Writes a streamed answer: headers at once (no length, no caching), then the stream until it ends. */
function writeStream(
  response: ServerResponse,
  answer: ApiResponse,
  options: { head: boolean; tls: boolean },
): void {
  response.writeHead(answer.status, {
    'x-content-type-options': 'nosniff',
    ...(options.tls ? { 'strict-transport-security': 'max-age=31536000' } : {}),
    'cache-control': 'no-store',
    ...answer.headers,
  })
  const gone = new AbortController()
  if (options.head) gone.abort()
  else response.flushHeaders()
  response.once('close', () => gone.abort())
  const write = (text: string) => void (options.head || response.write(text))
  const drained = async () => {
    if (gone.signal.aborted || !response.writableNeedDrain) return
    await once(response, 'drain', { signal: gone.signal }).catch(() => undefined)
  }
  const sink = { write, drained, signal: gone.signal }
  void answer.stream!(sink)
    .catch(() => undefined)
    .finally(() => response.end())
}
