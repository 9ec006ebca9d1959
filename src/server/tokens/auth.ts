/**
 * Authentication: the OAuth 2.0 client-credentials token endpoint (RFC 6749 section 4.4) and the
 * JWT-bearer grant of CI jobs' OIDC tokens (RFC 7523, oidc-grant.ts), with a
 * per-address rate limit and a per-(client id, source) growing delay, token revocation (RFC 7009
 * style), and the bearer check of every API request (signature, expiry, then the jti row so
 * revocation holds across replicas at once). Failed authentications go to the coalescing log.
 */
import { header, type ApiRequest, type Origin } from '../http/api.js'
import { VaultError } from '../../errors.js'
import { appendAudit } from '../audit/audit.js'
import { sourceKey } from '../http/client-address.js'
import type { VaultContext } from '../context.js'
import { ApiError, readFormOrJson } from '../http/http.js'
import type { PermissionMap } from '../identities.js'
import type { RateLimiter } from '../http/rate-limiter.js'
import type { CacheView } from '../read-cache.js'
import type { SqlExecutor } from '../store/index.js'
import {
  findLoginIdentity,
  findTokenHolder,
  insertAccessToken,
  revokeAccessToken,
  type LoginIdentity,
} from './token-rows.js'
import { signAccessToken, verifyAccessToken, verifyAccessTokenCached, type AccessClaims } from './tokens.js'
import { IssuerUnavailableError } from './issuer-fetch.js'
import { IssuerKeys } from './issuer-keys.js'
import { OidcRefusal } from './oidc.js'
import { exchangeAssertion, jwtBearerGrantType, OidcClientRefusal } from './oidc-grant.js'

export interface Principal {
  /** The identity's id, or `user:NAME` for a signed-in human. */
  identityId: string
  /** The audit actor: `identity:ID`, or `user:NAME`. */
  actor: string
  projectId: string
  name: string
  clientId: string
  permissions: PermissionMap
  jti: string
}

/** An OAuth error response of the token endpoint (`error` is the OAuth error code of the answer). */
export class OAuthError extends VaultError {
  override name = 'OAuthError'
  override readonly code: string = 'ERR_OAUTH'
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description)
  }
}

/** Client ids the server accepts and stores: `vc_` ids and other plain names, never control characters. */
export const clientIdPattern = /^[A-Za-z0-9_.-]{1,128}$/

function decodeCredential(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new OAuthError(400, 'invalid_request', 'the Basic credentials hold a malformed percent escape')
  }
}

function basicCredentials(request: ApiRequest): { clientId: string; clientSecret: string } | undefined {
  const value = header(request, 'authorization')
  if (!value?.toLowerCase().startsWith('basic ')) return undefined
  const decoded = Buffer.from(value.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  return {
    clientId: decodeCredential(decoded.slice(0, colon)),
    clientSecret: decodeCredential(decoded.slice(colon + 1)),
  }
}

type Grant =
  | { kind: 'secret'; clientId: string; clientSecret: string }
  | { kind: 'oidc'; clientId: string; assertion: string }

/** The grant of a token request: client credentials, or a CI job's OIDC token (RFC 7523). */
async function grantOf(request: ApiRequest): Promise<Grant> {
  const fields = await readFormOrJson(request)
  if (fields.grant_type !== jwtBearerGrantType) return { kind: 'secret', ...credentialsOf(request, fields) }
  const clientId = basicCredentials(request)?.clientId ?? fields.client_id
  if (!clientId || !fields.assertion)
    throw new OAuthError(400, 'invalid_request', 'client_id and assertion are required')
  return { kind: 'oidc', clientId, assertion: fields.assertion }
}

function credentialsOf(
  request: ApiRequest,
  fields: Record<string, string>,
): { clientId: string; clientSecret: string } {
  const basic = basicCredentials(request)
  if (fields.grant_type !== 'client_credentials') {
    throw new OAuthError(
      400,
      'unsupported_grant_type',
      `grant_type must be client_credentials or ${jwtBearerGrantType}`,
    )
  }
  const clientId = basic?.clientId ?? fields.client_id
  const clientSecret = basic?.clientSecret ?? fields.client_secret
  if (!clientId || !clientSecret)
    throw new OAuthError(400, 'invalid_request', 'client_id and client_secret are required')
  return { clientId, clientSecret }
}

const dummyHashes = new WeakMap<object, string>()

/**
 * Checks the credentials in one transaction and, when they hold, records and audits a new token.
 * An unknown client id is compared against a dummy hash, so it costs what a wrong secret costs.
 */
async function exchangeCredentials(
  context: VaultContext,
  credentials: { clientId: string; clientSecret: string },
  origin: Origin,
): Promise<{ identity?: LoginIdentity; token?: string }> {
  const { keyring, limits } = context
  return context.driver.transaction(async (tx) => {
    const identity = await findLoginIdentity(tx, credentials.clientId)
    if (!dummyHashes.has(keyring)) {
      dummyHashes.set(keyring, keyring.hashClientSecret('vault-no-such-client', 'vault-no-such-identity'))
    }
    const expected = identity?.secretHash ?? dummyHashes.get(keyring)!
    const matches = keyring.clientSecretMatches(
      credentials.clientSecret,
      expected,
      identity?.id ?? 'vault-no-such-identity',
    )
    if (!identity || identity.revoked || !matches) return { identity }
    const signed = await signAccessToken(
      context.jwtSecret,
      { identityId: identity.id, projectId: identity.projectId },
      limits.tokenTtlSeconds,
    )
    await insertAccessToken(tx, keyring.rowMacKey, { identity, claims: signed.claims })
    await appendAudit(tx, keyring.auditKey, {
      projectId: identity.projectId,
      actor: `identity:${identity.id}`,
      action: 'auth.login',
      result: 'ok',
      requestId: origin.requestId,
      ip: origin.ip,
    })
    return { identity, token: signed.token }
  })
}

/**
 * The JWT-bearer grant's outcome as the token endpoint answers it: the token, or an OAuth error that
 * names the failed check (logged as a failed login), or 503 when the issuer's keys could not be had.
 */
async function exchangeOidc(
  context: VaultContext,
  grant: { clientId: string; assertion: string },
  request: ApiRequest,
  failed: (projectId: string | null, actor: string, detail: string) => Promise<unknown>,
): Promise<string> {
  const known: { identity?: { id: string; projectId: string } } = {}
  try {
    return await exchangeAssertion(
      context,
      issuerKeysOf(context),
      { ...grant, origin: request.origin },
      known,
    )
  } catch (error) {
    const refusal =
      error instanceof OidcRefusal ||
      error instanceof OidcClientRefusal ||
      error instanceof IssuerUnavailableError
    if (!refusal) throw error
    const { identity } = known
    await failed(
      identity?.projectId ?? null,
      identity ? `identity:${identity.id}` : `client:${grant.clientId}`,
      `oidc: ${error.message}`.slice(0, 500),
    )
    if (error instanceof IssuerUnavailableError) {
      throw new OAuthError(
        503,
        'temporarily_unavailable',
        `the OIDC issuer's keys could not be fetched: ${error.message}`,
      )
    }
    if (error instanceof OidcClientRefusal) throw new OAuthError(401, 'invalid_client', error.message)
    throw new OAuthError(401, 'invalid_grant', error.message)
  }
}

const issuerKeys = new WeakMap<VaultContext, IssuerKeys>()

/** The OIDC issuers' key cache of a vault (one per server process). */
export function issuerKeysOf(context: VaultContext): IssuerKeys {
  let keys = issuerKeys.get(context)
  if (!keys) issuerKeys.set(context, (keys = new IssuerKeys()))
  return keys
}

/**
 * Exchanges client credentials or a CI job's OIDC token for an access token: the per-address limit,
 * the client id alphabet, the (client id, source) delay, then the check. An attempt counts as failed
 * until it succeeds, so parallel guesses cannot slip past the delay.
 */
export async function issueToken(
  context: VaultContext,
  request: ApiRequest,
  limiter: RateLimiter,
): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number }> {
  const { ip, requestId } = request.origin
  const wait = limiter.take(sourceKey(ip))
  if (wait > 0) {
    throw new OAuthError(429, 'rate_limited', 'too many token requests; retry later', {
      'retry-after': String(wait),
    })
  }
  const grant = await grantOf(request)
  const { clientId } = grant
  const failed = (projectId: string | null, actor: string, detail: string) =>
    context.failedAuth.record({
      projectId,
      actor,
      action: 'auth.login',
      result: 'failed',
      requestId,
      ip,
      detail,
    })
  if (!clientIdPattern.test(clientId)) {
    await failed(null, 'client:(malformed id)', 'client_id outside [A-Za-z0-9_.-]')
    throw new OAuthError(400, 'invalid_request', 'client_id may hold only letters, digits, "_", "." and "-"')
  }
  const pair = { clientId, ip: sourceKey(ip) }
  const delay = context.loginThrottle.wait(pair)
  if (delay > 0) {
    await failed(null, `client:${clientId}`, 'throttled after repeated failed logins')
    throw new OAuthError(429, 'rate_limited', 'too many failed logins from this address; retry later', {
      'retry-after': String(delay),
    })
  }
  context.loginThrottle.failed(pair)
  if (grant.kind === 'oidc') {
    const issued = await exchangeOidc(context, grant, request, failed)
    context.loginThrottle.succeeded(pair)
    return { access_token: issued, token_type: 'Bearer', expires_in: context.limits.tokenTtlSeconds }
  }
  const { identity, token } = await exchangeCredentials(context, grant, request.origin)
  if (token === undefined) {
    await failed(
      identity?.projectId ?? null,
      identity ? `identity:${identity.id}` : `client:${clientId}`,
      'wrong client id or secret',
    )
    const basic = header(request, 'authorization')?.toLowerCase().startsWith('basic ')
    throw new OAuthError(
      401,
      'invalid_client',
      'client authentication failed',
      basic ? { 'www-authenticate': 'Basic realm="vault"' } : {},
    )
  }
  context.loginThrottle.succeeded(pair)
  return { access_token: token, token_type: 'Bearer', expires_in: context.limits.tokenTtlSeconds }
}

/** Revokes the access token in the body when it is valid; always succeeds (RFC 7009). */
export async function revokeToken(context: VaultContext, request: ApiRequest): Promise<void> {
  const fields = await readFormOrJson(request)
  const claims = fields.token ? await verifyAccessToken(context.jwtSecret, fields.token) : null
  if (!claims) return
  await context.driver.transaction((tx) => revokeAccessToken(tx, claims.jti))
}

/** A 401 of the API (with the Bearer challenge). */
export function unauthorized(message: string): ApiError {
  return new ApiError(401, 'unauthorized', message, { 'www-authenticate': 'Bearer realm="vault"' })
}

/**
 * Checks the bearer token's form, signature and expiry without touching the store; a refused token
 * goes to the coalescing failed-authentication log and is answered 401.
 */
export async function verifyBearer(context: VaultContext, request: ApiRequest): Promise<AccessClaims> {
  const value = header(request, 'authorization')
  if (!value?.startsWith('Bearer ')) throw unauthorized('a bearer token is required')
  const claims = await verifyAccessTokenCached(context.jwtSecret, value.slice(7).trim())
  if (claims) return claims
  await context.failedAuth.record({
    projectId: null,
    actor: 'anonymous',
    action: 'auth.token',
    result: 'denied',
    requestId: request.origin.requestId,
    ip: request.origin.ip,
    detail: 'invalid or expired token',
  })
  throw unauthorized('the access token is invalid or expired')
}

/**
 * The principal of verified claims inside the caller's transaction, or undefined (audited, coalesced
 * per source) when the token or its identity was revoked, so revocation holds across replicas at once.
 * With a cache view, a principal found is taken from and kept in the cache of its generation (a
 * refusal never is: an unknown or revoked token is looked up every time).
 */
export async function loadPrincipal(
  context: VaultContext,
  tx: SqlExecutor,
  found: { claims: AccessClaims; origin: Origin; view?: CacheView | undefined },
): Promise<Principal | undefined> {
  const { claims, origin, view } = found
  const cached = view?.principal<Principal>(claims.jti)
  if (cached) return cached
  const holder = await findTokenHolder(tx, context.keyring.rowMacKey, claims.jti)
  const refused = !holder || holder.tokenRevoked || holder.identityRevoked || holder.secretRotated
  if (refused || holder.projectId !== claims.pid) {
    await context.failedAuth.record(
      {
        projectId: claims.pid,
        actor: `identity:${claims.sub}`,
        action: 'auth.token',
        result: 'denied',
        requestId: origin.requestId,
        ip: origin.ip,
        detail: 'revoked token',
      },
      tx,
    )
    return undefined
  }
  const principal: Principal = Object.freeze({
    identityId: claims.sub,
    actor: `identity:${claims.sub}`,
    projectId: claims.pid,
    name: holder.name,
    clientId: holder.clientId,
    permissions: holder.permissions,
    jti: claims.jti,
  })
  view?.storePrincipal(claims.jti, principal)
  return principal
}
