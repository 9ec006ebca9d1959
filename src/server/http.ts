/**
 * HTTP plumbing of the vault API: the API error type and its JSON shape, bounded body reading
 * (JSON, form), JSON responses and the client address (X-Forwarded-For only behind a proxy).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** An API failure: status, snake_case code and a one-line message that never holds a secret value. */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

/** The largest request body accepted, in bytes. */
export const maxBodyBytes = 256 * 1024

/** Reads the body up to `maxBodyBytes` (413 beyond). */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0)
  if (declared > maxBodyBytes)
    throw new ApiError(413, 'value_too_large', `request body over ${maxBodyBytes} bytes`)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBodyBytes)
      throw new ApiError(413, 'value_too_large', `request body over ${maxBodyBytes} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

function mediaType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
}

/**
 * Parses a JSON object body; malformed JSON is a 400 that does not echo the body. A JSON body sent as
 * text/plain or with curl's default form type (`curl -d '{"value":...}'`) is accepted as JSON.
 */
export async function readJsonObject(request: IncomingMessage): Promise<Record<string, unknown>> {
  const type = mediaType(request)
  const lenient = ['', 'application/json', 'text/plain', 'application/x-www-form-urlencoded']
  if (!lenient.includes(type) && !type.endsWith('+json')) {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as application/json')
  }
  const body = await readBody(request)
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    throw new ApiError(400, 'malformed_json', 'the request body is not valid JSON')
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'bad_request', 'the request body must be a JSON object')
  }
  return parsed as Record<string, unknown>
}

/** Parses a form or JSON body into string fields (token endpoints accept both). */
export async function readFormOrJson(request: IncomingMessage): Promise<Record<string, string>> {
  const type = mediaType(request)
  const body = (await readBody(request)).toString('utf8')
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

/** Sends a JSON response. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  })
  response.end(text)
}

/** The client's address; X-Forwarded-For is trusted only behind a proxy. */
export function clientAddress(request: IncomingMessage, behindProxy: boolean): string {
  if (behindProxy) {
    const forwarded = request.headers['x-forwarded-for']
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim()
    if (first) return first
  }
  return request.socket.remoteAddress ?? 'unknown'
}
