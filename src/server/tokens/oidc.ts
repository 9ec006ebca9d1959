/**
 * Verification of a CI job's OIDC token against an identity's trust: the algorithm (RS256, ES256 or
 * EdDSA only: `none` and HMAC never), the issuer (exactly), the signature with the issuer's published
 * keys, the audience (exactly), `exp`, `nbf` and `iat` with 60 s of skew, a `jti`, the subject pattern
 * and every required claim (own properties only). A refusal names the check it failed; it never
 * quotes the token. Replay of a `jti` is the grant's check (oidc-grant.ts), in the database.
 */
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose'
import { VaultError } from '../../errors.js'
import type { IssuerKeys } from './issuer-keys.js'
import type { OidcTrust } from './oidc-trust.js'
import { subjectMatches } from './subject-pattern.js'

/** The checks an OIDC token can fail, as the token endpoint names them. */
export type OidcCheck = 'issuer' | 'audience' | 'subject' | 'claim' | 'expiry' | 'signature' | 'replay'

/** A token refused by one check; `detail` says why, without the token. */
export class OidcRefusal extends VaultError {
  override name = 'OidcRefusal'
  override readonly code: string = 'ERR_OIDC_REFUSED'
  constructor(
    readonly check: OidcCheck,
    readonly detail: string,
  ) {
    super(`the OIDC token failed the ${check} check: ${detail}`)
  }
}

/** What a verified token says, for the audit log and the replay check. */
export interface VerifiedAssertion {
  iss: string
  sub: string
  jti: string
  /** Seconds since the epoch. */
  exp: number
}

export const allowedAlgorithms = ['RS256', 'ES256', 'EdDSA']
/** Clock skew allowed on exp, nbf and iat, in seconds. */
export const clockSkewSeconds = 60
/** The largest assertion accepted, in characters. */
export const maxAssertionLength = 16 * 1024

/** Quotes a token-supplied value for a refusal (bounded, JSON-escaped). */
function quoted(value: unknown): string {
  const text = JSON.stringify(typeof value === 'string' ? value.slice(0, 200) : (value ?? null))
  return text === undefined ? 'null' : text
}

function unverified(assertion: string) {
  if (assertion.length > maxAssertionLength) {
    throw new OidcRefusal('signature', `the token is longer than ${maxAssertionLength} characters`)
  }
  try {
    return { header: decodeProtectedHeader(assertion), payload: decodeJwt(assertion) }
  } catch {
    throw new OidcRefusal('signature', 'the token is not a signed JWT')
  }
}

/** The check a jose error stands for. */
function refusalOf(error: unknown): OidcRefusal | undefined {
  if (error instanceof errors.JWTExpired) return new OidcRefusal('expiry', 'the token has expired')
  if (error instanceof errors.JWTClaimValidationFailed) {
    const byClaim: Record<string, OidcCheck> = {
      iss: 'issuer',
      aud: 'audience',
      nbf: 'expiry',
      iat: 'expiry',
      exp: 'expiry',
      sub: 'subject',
      jti: 'replay',
    }
    const check = Object.hasOwn(byClaim, error.claim) ? byClaim[error.claim]! : 'claim'
    const detail = error.claim === 'nbf' ? 'the token is not yet valid' : error.message
    return new OidcRefusal(check, detail)
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new OidcRefusal('signature', 'no key the issuer publishes matches the token (kid)')
  }
  if (error instanceof errors.JOSEError) return new OidcRefusal('signature', 'the signature does not verify')
  return undefined
}

/** Verifies `assertion` against `trust` at `now` (ms); throws OidcRefusal or IssuerUnavailableError. */
export async function verifyAssertion(
  assertion: string,
  trust: OidcTrust,
  keys: IssuerKeys,
  now: number = Date.now(),
): Promise<VerifiedAssertion> {
  const { header, payload: claimed } = unverified(assertion)
  if (typeof header.alg !== 'string' || !allowedAlgorithms.includes(header.alg)) {
    throw new OidcRefusal(
      'signature',
      `algorithm ${quoted(header.alg)} is refused (only ${allowedAlgorithms.join(', ')})`,
    )
  }
  if (claimed.iss !== trust.issuer) {
    throw new OidcRefusal('issuer', `the token's issuer ${quoted(claimed.iss)} is not the trusted issuer`)
  }
  let payload: JWTPayload
  try {
    ;({ payload } = await jwtVerify(assertion, keys.resolver(trust.issuer), {
      algorithms: allowedAlgorithms,
      issuer: trust.issuer,
      audience: trust.audience,
      clockTolerance: clockSkewSeconds,
      currentDate: new Date(now),
      requiredClaims: ['exp', 'iat'],
    }))
  } catch (error) {
    throw refusalOf(error) ?? error
  }
  if (typeof payload.iat !== 'number' || payload.iat > now / 1000 + clockSkewSeconds) {
    throw new OidcRefusal('expiry', 'the token was issued in the future')
  }
  if (typeof payload.sub !== 'string' || !subjectMatches(trust.subject, payload.sub)) {
    throw new OidcRefusal('subject', `the subject ${quoted(payload.sub)} does not match the trusted pattern`)
  }
  for (const [name, expected] of trust.claims) {
    const value: unknown = Object.hasOwn(payload, name) ? payload[name] : undefined
    const comparable = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    if (!comparable || String(value) !== expected) {
      throw new OidcRefusal('claim', `claim ${name} is ${quoted(value)}, not the trusted value`)
    }
  }
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 256) {
    throw new OidcRefusal('replay', 'the token has no usable jti, so its single use cannot be checked')
  }
  return { iss: trust.issuer, sub: payload.sub, jti: payload.jti, exp: payload.exp! }
}
