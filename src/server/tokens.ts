/**
 * HS256 access tokens (JWT, RFC 7519) with the algorithm pinned: the header must say HS256, the
 * signature is compared in constant time, `exp` is enforced. Revocation lives in the database (jti).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { hmacSha256 } from './hmac.js'

export interface AccessClaims {
  /** identity id */
  sub: string
  /** project id */
  pid: string
  jti: string
  iat: number
  exp: number
}

const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')

/** Signs claims for `ttlSeconds` from now. */
export function signAccessToken(
  secret: Buffer,
  subject: { identityId: string; projectId: string },
  ttlSeconds: number,
  now = Date.now(),
): { token: string; claims: AccessClaims } {
  const iat = Math.floor(now / 1000)
  const claims: AccessClaims = {
    sub: subject.identityId,
    pid: subject.projectId,
    jti: randomBytes(16).toString('hex'),
    iat,
    exp: iat + ttlSeconds,
  }
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url')
  const signature = hmacSha256(secret).update(`${header}.${payload}`).digest('base64url')
  return { token: `${header}.${payload}.${signature}`, claims }
}

/** The claims of a valid, unexpired HS256 token signed with `secret`, or null. */
export function verifyAccessToken(secret: Buffer, token: string, now = Date.now()): AccessClaims | null {
  const parts = token.split('.')
  if (parts.length !== 3) return null
  const [head, payload, signature] = parts as [string, string, string]
  let parsedHeader: { alg?: unknown; typ?: unknown }
  try {
    parsedHeader = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (parsedHeader?.alg !== 'HS256') return null
  const expected = hmacSha256(secret).update(`${head}.${payload}`).digest()
  const actual = Buffer.from(signature, 'base64url')
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null
  let claims: AccessClaims
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (typeof claims.sub !== 'string' || typeof claims.pid !== 'string' || typeof claims.jti !== 'string')
    return null
  if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) return null
  return claims
}

const verifiedTokens = new WeakMap<Buffer, Map<string, AccessClaims>>()
const maxVerifiedTokens = 10_000

/**
 * Like verifyAccessToken, remembering the claims of tokens that verified (per signing key) until they
 * expire, so a client's repeated requests skip the signature check. Expiry is checked on every call;
 * revocation is not decided here (the jti row is read on every request).
 */
export function verifyAccessTokenCached(
  secret: Buffer,
  token: string,
  now = Date.now(),
): AccessClaims | null {
  let verified = verifiedTokens.get(secret)
  if (verified === undefined) {
    verified = new Map()
    verifiedTokens.set(secret, verified)
  }
  const known = verified.get(token)
  if (known !== undefined) {
    if (known.exp * 1000 > now) return known
    verified.delete(token)
    return null
  }
  const claims = verifyAccessToken(secret, token, now)
  if (claims === null) return null
  if (verified.size >= maxVerifiedTokens) verified.delete(verified.keys().next().value!)
  verified.set(token, Object.freeze(claims))
  return claims
}
