/**
 * HS256 access tokens (JWT, RFC 7519) signed and verified with `jose`: the algorithm is pinned to
 * HS256, the `typ` to JWT, `sub`, `pid`, `jti`, `iat` and `exp` are required, and `exp` is enforced
 * with no leeway. Revocation lives in the database (jti).
 */
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto'
import { jwtVerify, SignJWT } from 'jose'

export interface AccessClaims {
  /** identity id */
  sub: string
  /** project id */
  pid: string
  jti: string
  iat: number
  exp: number
}

const keyObjects = new WeakMap<Buffer, KeyObject>()

function signingKey(secret: Buffer): KeyObject {
  let key = keyObjects.get(secret)
  if (key === undefined) {
    key = createSecretKey(secret)
    keyObjects.set(secret, key)
  }
  return key
}

/** Signs claims for `ttlSeconds` from `now` (with a random jti unless the subject brings its own). */
export async function signAccessToken(
  secret: Buffer,
  subject: { identityId: string; projectId: string; jti?: string },
  ttlSeconds: number,
  now = Date.now(),
): Promise<{ token: string; claims: AccessClaims }> {
  const iat = Math.floor(now / 1000)
  const claims: AccessClaims = {
    sub: subject.identityId,
    pid: subject.projectId,
    jti: subject.jti ?? randomBytes(16).toString('hex'),
    iat,
    exp: iat + ttlSeconds,
  }
  const token = await new SignJWT({ pid: claims.pid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setJti(claims.jti)
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp)
    .sign(signingKey(secret))
  return { token, claims }
}

/** A compact JWS: three unpadded base64url parts (jose's decoder would also take padding). */
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/

/** The claims of a valid, unexpired HS256 token signed with `secret`, or null. */
export async function verifyAccessToken(
  secret: Buffer,
  token: string,
  now = Date.now(),
): Promise<AccessClaims | null> {
  if (token.length > 4096 || !compactJws.test(token)) return null
  try {
    const { payload } = await jwtVerify(token, signingKey(secret), {
      algorithms: ['HS256'],
      typ: 'JWT',
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      currentDate: new Date(now),
    })
    const { sub, pid, jti, iat, exp } = payload
    if (typeof pid !== 'string' || typeof sub !== 'string' || typeof jti !== 'string') return null
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp * 1000 <= now) return null
    return { sub, pid, jti, iat, exp }
  } catch {
    return null
  }
}

const verifiedTokens = new WeakMap<Buffer, Map<string, AccessClaims>>()
const maxVerifiedTokens = 10_000

/**
 * Like verifyAccessToken, remembering the claims of tokens that verified (per signing key) until they
 * expire, so a client's repeated requests skip the signature check. Expiry is checked on every call;
 * revocation is not decided here (the jti row is read on every request).
 */
export async function verifyAccessTokenCached(
  secret: Buffer,
  token: string,
  now = Date.now(),
): Promise<AccessClaims | null> {
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
  const claims = await verifyAccessToken(secret, token, now)
  if (claims === null) return null
  if (verified.size >= maxVerifiedTokens) verified.delete(verified.keys().next().value!)
  verified.set(token, Object.freeze(claims))
  return claims
}
