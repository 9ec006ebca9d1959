/**
 * The mapping of the vault's HTTP error answers to the typed errors of src/errors.ts, so each ends
 * the CLI with its documented exit code. Messages come from the server's error body (which never
 * holds a secret value), cut to one line.
 */
import {
  AuthError,
  ConflictError,
  NotFoundError,
  UnreachableError,
  UsageError,
  type VaultError,
} from '../errors.js'

/** The typed error for an HTTP error status and the server's JSON error body. */
export function httpStatusError(
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined> = {},
): VaultError {
  const { code, message } = describeErrorBody(body)
  const label = `HTTP ${status}${code ? ` ${code}` : ''}`
  const text = message ? `${message} (${label})` : label
  if (code === 'environment_required') {
    const reachable = /one of: (.*)$/.exec(message ?? '')?.[1]
    return new UsageError(
      `no environment chosen, and the identity reaches several${reachable ? ` (${reachable})` : ''}`,
      { hint: 'pass --env (or set VAULT_ENV)' },
    )
  }
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
      if (isGatewayFailure(status, body)) {
        return new UnreachableError(
          `a gateway in front of the vault answered HTTP ${status}: the vault behind it is not answering`,
          { hint: 'check that the vault server is running behind the reverse proxy' },
        )
      }
      return new UnreachableError(`the vault answered with an error: ${text}`, {
        hint: 'check the vault server logs',
      })
  }
}

/**
 * True for a 502, 503 or 504 that is not the vault's own JSON error (`{ error: ... }`): the answer of
 * a reverse proxy whose upstream, the vault, is down or not answering. The vault is then as
 * unreachable as a refused connection; a 503 in the vault's own words keeps its meaning.
 */
export function isGatewayFailure(status: number, body: string): boolean {
  return gatewayStatuses.has(status) && describeErrorBody(body).code === undefined
}

const gatewayStatuses = new Set([502, 503, 504])

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
