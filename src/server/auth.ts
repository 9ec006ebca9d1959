/**
 * Authentication: the OAuth 2.0 client-credentials token endpoint (RFC 6749 section 4.4) with lockout
 * and a per-address rate limit, token revocation (RFC 7009 style), and the bearer check of every API
 * request (signature, expiry, then the jti row so revocation holds across replicas at once).
 */
import type { IncomingMessage } from 'node:http'
import { appendAudit, recordAudit } from './audit.js'
import type { VaultContext } from './context.js'
import { ApiError, readFormOrJson } from './http.js'
import type { PermissionMap } from './identities.js'
import type { SqlExecutor } from './store/index.js'
import { signAccessToken, verifyAccessToken, verifyAccessTokenCached, type AccessClaims } from './tokens.js'

export interface Principal {
  identityId: string
  projectId: string
  name: string
  clientId: string
  permissions: PermissionMap
  jti: string
}

/** An OAuth error response of the token endpoint. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description)
  }
}

/** A sliding one-minute window of requests per key, in memory (per process). */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>()
  constructor(private readonly perMinute: number) {}

  /** Seconds to wait, or 0 when the request may proceed (and is counted). */
  take(key: string, now = Date.now()): number {
    const recent = (this.hits.get(key) ?? []).filter((at) => at > now - 60_000)
    if (recent.length >= this.perMinute) {
      this.hits.set(key, recent)
      return Math.max(1, Math.ceil((recent[0]! + 60_000 - now) / 1000))
    }
    recent.push(now)
    this.hits.set(key, recent)
    if (this.hits.size > 10_000) this.hits.clear()
    return 0
  }
}

function basicCredentials(request: IncomingMessage): { clientId: string; clientSecret: string } | undefined {
  const header = request.headers.authorization
  if (!header?.toLowerCase().startsWith('basic ')) return undefined
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  return {
    clientId: decodeURIComponent(decoded.slice(0, colon)),
    clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
  }
}

/** Exchanges client credentials for an access token. */
export async function issueToken(
  context: VaultContext,
  request: IncomingMessage,
  ip: string,
  limiter: RateLimiter,
  requestId: string,
): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number }> {
  const wait = limiter.take(ip)
  if (wait > 0) {
    throw new OAuthError(429, 'rate_limited', 'too many token requests; retry later', {
      'retry-after': String(wait),
    })
  }
  const fields = await readFormOrJson(request)
  const basic = basicCredentials(request)
  if (fields.grant_type !== 'client_credentials') {
    throw new OAuthError(400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported')
  }
  const clientId = basic?.clientId ?? fields.client_id
  const clientSecret = basic?.clientSecret ?? fields.client_secret
  if (!clientId || !clientSecret)
    throw new OAuthError(400, 'invalid_request', 'client_id and client_secret are required')
  const invalid = new OAuthError(
    401,
    'invalid_client',
    'client authentication failed',
    basic ? { 'www-authenticate': 'Basic realm="vault"' } : {},
  )
  const { keyring, limits } = context
  const outcome = await context.driver.transaction(async (tx) => {
    const [row] = await tx.lockRows<{
      id: string
      project_id: string
      secret_hash: string
      failed_logins: number
      locked_until: string | null
      revoked_at: string | null
    }>(
      `SELECT id, project_id, secret_hash, failed_logins, locked_until, revoked_at FROM identities WHERE client_id = ?`,
      [clientId],
    )
    const now = Date.now()
    const audit = (result: 'ok' | 'failed' | 'denied', detail?: string) =>
      appendAudit(tx, keyring.auditKey, {
        projectId: row?.project_id ?? null,
        actor: row ? `identity:${row.id}` : `client:${clientId.slice(0, 64)}`,
        action: 'auth.login',
        result,
        requestId,
        ip,
        detail,
      })
    if (row?.locked_until && Date.parse(row.locked_until) > now) {
      await audit('denied', 'locked')
      return { kind: 'locked' as const, retryAfter: Math.ceil((Date.parse(row.locked_until) - now) / 1000) }
    }
    if (!row || row.revoked_at || !keyring.clientSecretMatches(clientSecret, row.secret_hash)) {
      if (row && !row.revoked_at) {
        const failures = Number(row.failed_logins) + 1
        const lock = failures >= limits.lockoutThreshold
        await tx.run(`UPDATE identities SET failed_logins = ?, locked_until = ? WHERE id = ?`, [
          lock ? 0 : failures,
          lock ? new Date(now + limits.lockoutSeconds * 1000).toISOString() : null,
          row.id,
        ])
      }
      await audit('failed')
      return { kind: 'invalid' as const }
    }
    if (Number(row.failed_logins) > 0 || row.locked_until) {
      await tx.run(`UPDATE identities SET failed_logins = 0, locked_until = NULL WHERE id = ?`, [row.id])
    }
    const signed = signAccessToken(
      context.jwtSecret,
      { identityId: row.id, projectId: row.project_id },
      limits.tokenTtlSeconds,
      now,
    )
    await tx.run(`INSERT INTO access_tokens (jti, identity_id, issued_at, expires_at) VALUES (?, ?, ?, ?)`, [
      signed.claims.jti,
      row.id,
      new Date(signed.claims.iat * 1000).toISOString(),
      new Date(signed.claims.exp * 1000).toISOString(),
    ])
    await tx.run(`DELETE FROM access_tokens WHERE identity_id = ? AND expires_at < ?`, [
      row.id,
      new Date(now - 86_400_000).toISOString(),
    ])
    await audit('ok')
    return { kind: 'ok' as const, token: signed.token }
  })
  if (outcome.kind === 'locked') {
    throw new OAuthError(
      429,
      'rate_limited',
      'this client is locked after repeated failed logins; retry later',
      {
        'retry-after': String(outcome.retryAfter),
      },
    )
  }
  if (outcome.kind === 'invalid') throw invalid
  return { access_token: outcome.token, token_type: 'Bearer', expires_in: limits.tokenTtlSeconds }
}

/** Revokes the access token in the body when it is valid; always succeeds (RFC 7009). */
export async function revokeToken(context: VaultContext, request: IncomingMessage): Promise<void> {
  const fields = await readFormOrJson(request)
  const claims = fields.token ? verifyAccessToken(context.jwtSecret, fields.token) : null
  if (!claims) return
  await context.driver.transaction((tx) =>
    tx.run(`UPDATE access_tokens SET revoked_at = ? WHERE jti = ? AND revoked_at IS NULL`, [
      new Date().toISOString(),
      claims.jti,
    ]),
  )
}

/** A 401 of the API (with the Bearer challenge). */
export function unauthorized(message: string): ApiError {
  return new ApiError(401, 'unauthorized', message, { 'www-authenticate': 'Bearer realm="vault"' })
}

/**
 * Checks the bearer token's form, signature and expiry without touching the store; a refused token
 * is audited in its own transaction and answered 401.
 */
export async function verifyBearer(
  context: VaultContext,
  request: IncomingMessage,
  ip: string,
  requestId: string,
): Promise<AccessClaims> {
  const header = request.headers.authorization
  if (!header?.startsWith('Bearer ')) throw unauthorized('a bearer token is required')
  const claims = verifyAccessTokenCached(context.jwtSecret, header.slice(7).trim())
  if (claims) return claims
  await recordAudit(context.driver, context.keyring.auditKey, {
    projectId: null,
    actor: 'anonymous',
    action: 'auth.token',
    result: 'denied',
    requestId,
    ip,
    detail: 'invalid or expired token',
  })
  throw unauthorized('the access token is invalid or expired')
}

/**
 * The principal of verified claims inside the caller's transaction, or undefined (audited) when the
 * token or its identity was revoked, so revocation holds across replicas at once.
 */
export async function loadPrincipal(
  context: VaultContext,
  tx: SqlExecutor,
  claims: AccessClaims,
  ip: string,
  requestId: string,
): Promise<Principal | undefined> {
  const [found] = await tx.all(
    `SELECT t.revoked_at AS token_revoked, i.revoked_at AS identity_revoked, i.name, i.client_id, i.permissions,
     i.project_id FROM access_tokens t JOIN identities i ON i.id = t.identity_id WHERE t.jti = ?`,
    [claims.jti],
  )
  if (!found || found.token_revoked || found.identity_revoked || found.project_id !== claims.pid) {
    await appendAudit(tx, context.keyring.auditKey, {
      projectId: claims.pid,
      actor: `identity:${claims.sub}`,
      action: 'auth.token',
      result: 'denied',
      requestId,
      ip,
      detail: 'revoked token',
    })
    return undefined
  }
  return {
    identityId: claims.sub,
    projectId: claims.pid,
    name: String(found.name),
    clientId: String(found.client_id),
    permissions: JSON.parse(String(found.permissions)) as PermissionMap,
    jti: claims.jti,
  }
}
