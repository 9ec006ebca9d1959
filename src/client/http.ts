/**
 * The HTTP transport of the vault client (the only module that imports got): base URL, timeouts,
 * retries of idempotent requests and of any request the server refused with 429 (honouring
 * Retry-After), and the mapping of failures to the typed errors of src/errors.ts. Debug lines
 * (DEBUG=vault* or *) name the method, path and status only: never headers or bodies.
 */
import {
  AuthError,
  ConflictError,
  NotFoundError,
  UnreachableError,
  UsageError,
  VaultError,
} from '../errors.js'

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
}

export interface HttpResponse<T> {
  status: number
  body: T
  headers: Record<string, string | string[] | undefined>
}

export interface HttpClientOptions {
  baseUrl: URL
  /** Milliseconds for the whole request (default 30 s). */
  timeoutMs?: number
  /** Retries after the first attempt (default 2). */
  retries?: number
  /** Longest Retry-After honoured, in milliseconds (default 30 s). */
  maxRetryAfterMs?: number
}

/** A function that sends one request and returns the parsed JSON body (undefined when empty). */
export type HttpClient = <T>(request: HttpRequest) => Promise<HttpResponse<T>>

const idempotent = new Set<string>(['GET', 'HEAD', 'PUT', 'DELETE'])

/** Builds the transport for one vault base URL. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const debug = debugEnabled(process.env.DEBUG)
  return async <T>(request: HttpRequest): Promise<HttpResponse<T>> => {
    const { default: got, HTTPError, RequestError } = await import('got')
    const url = new URL(request.path.replace(/^\//, ''), withSlash(options.baseUrl))
    for (const [name, value] of Object.entries(request.searchParams ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value)
    }
    const started = Date.now()
    try {
      const response = await got(url, {
        method: request.method,
        headers: {
          accept: 'application/json',
          ...(request.bearer ? { authorization: `Bearer ${request.bearer}` } : {}),
          ...request.headers,
        },
        json: request.json,
        form: request.form,
        responseType: 'text',
        followRedirect: false,
        timeout: { request: options.timeoutMs ?? 30_000 },
        retry: {
          limit: options.retries ?? 2,
          methods: ['GET', 'HEAD', 'PUT', 'DELETE', 'POST', 'PATCH'],
          statusCodes: [408, 429, 502, 503, 504],
          maxRetryAfter: options.maxRetryAfterMs ?? 30_000,
          calculateDelay: ({ computedValue, error }) => {
            const status = error.response?.statusCode
            if (status === 429 || error.code === 'ECONNREFUSED') return computedValue
            return idempotent.has(request.method) ? computedValue : 0
          },
        },
      })
      if (debug) logDebug(request, url, response.statusCode, started)
      return { status: response.statusCode, body: parseBody<T>(response.body), headers: response.headers }
    } catch (error) {
      if (error instanceof HTTPError) {
        if (debug) logDebug(request, url, error.response.statusCode, started)
        throw httpStatusError(
          error.response.statusCode,
          String(error.response.body ?? ''),
          error.response.headers,
        )
      }
      if (error instanceof RequestError) {
        if (debug) logDebug(request, url, error.code, started)
        throw new UnreachableError(`cannot reach the vault at ${options.baseUrl.origin}: ${error.code}`, {
          hint: 'check VAULT_DOMAIN and connectivity (vault doctor runs an HTTP HEAD on the vault URL)',
        })
      }
      throw error
    }
  }
}

/** The typed error for an HTTP error status and the server's JSON error body. */
export function httpStatusError(
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined> = {},
): VaultError {
  const { code, message } = describeErrorBody(body)
  const text = message
    ? `${message} (HTTP ${status}${code ? ` ${code}` : ''})`
    : `HTTP ${status}${code ? ` ${code}` : ''}`
  switch (status) {
    case 400:
    case 413:
    case 415:
      return new UsageError(`the vault refused the request: ${text}`)
    case 401:
      return new AuthError(`the vault refused the credentials: ${text}`, {
        hint: 'check VAULT_CLIENT_ID and VAULT_CLIENT_SECRET, then run vault login',
      })
    case 403:
      return new AuthError(`permission denied: ${text}`, {
        hint: "the machine identity lacks this permission, or --project is not the token's project",
      })
    case 404:
      return new NotFoundError(`not found: ${text}`)
    case 409:
      return new ConflictError(`conflict: ${text}`)
    case 412:
      return new ConflictError(`the secret changed since it was read: ${text}`, {
        hint: 'read it again and retry',
      })
    case 429:
      return new UnreachableError(`the vault is rate limiting this client: ${text}`, {
        hint: `retry after ${String(headers['retry-after'] ?? 'a while')} seconds`,
      })
    default:
      return new UnreachableError(`the vault answered with an error: ${text}`, {
        hint: 'check the vault server logs',
      })
  }
}

function describeErrorBody(body: string): { code?: string; message?: string } {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown }
    if (typeof parsed.error === 'string') {
      return { code: parsed.error, message: oneLine(parsed.error_description) }
    }
    if (typeof parsed.error === 'object' && parsed.error !== null) {
      const detail = parsed.error as { code?: unknown; message?: unknown }
      return {
        code: typeof detail.code === 'string' ? detail.code : undefined,
        message: oneLine(detail.message),
      }
    }
  } catch {
    return {}
  }
  return {}
}

function oneLine(value: unknown): string | undefined {
  return typeof value === 'string' ? value.split('\n')[0]!.slice(0, 300) : undefined
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

function withSlash(url: URL): URL {
  return url.pathname.endsWith('/') ? url : new URL(`${url.href}/`)
}

/** True when DEBUG names vault (`vault`, `vault:*`, `*`). */
export function debugEnabled(value: string | undefined): boolean {
  if (!value) return false
  return value.split(/[\s,]+/).some((pattern) => pattern === '*' || /^vault(:|\*|$)/.test(pattern))
}

function logDebug(request: HttpRequest, url: URL, outcome: number | string, started: number): void {
  process.stderr.write(
    `vault:http ${request.method} ${url.pathname} -> ${outcome} (${Date.now() - started} ms)\n`,
  )
}
