/**
 * The OIDC trust of a machine identity: which issuer, audience, subject pattern and extra claims a CI
 * job's token must carry to be exchanged for the identity's access token. Parsed and checked once, at
 * the door (identity create/update), and stored as one canonical JSON text in the identity's row,
 * which the row MAC covers (keys/row-mac.ts), so a database edit cannot widen it.
 */
import { UsageError } from '../../errors.js'
import { subjectPatternProblem } from './subject-pattern.js'

export interface OidcTrust {
  /** The issuer exactly as the tokens' `iss` says it (https, or an explicit loopback http with a port). */
  issuer: string
  /** The `aud` the tokens must carry. */
  audience: string
  /** An exact subject, or a glob whose `*` stays within one `:`-separated segment. */
  subject: string
  /** Further claims that must equal these strings, in the order given (a list: never an object). */
  claims: [string, string][]
}

/** What an admin writes: `--oidc-issuer`, `--oidc-audience`, `--oidc-subject`, `--oidc-claim key=value`. */
export interface OidcTrustInput {
  issuer?: string
  audience?: string
  subject?: string
  claims?: string[]
}

const claimNamePattern = /^[A-Za-z0-9_.:-]{1,64}$/
/** Claims whose checks are the grant's own (they are named by their own flags or checked always). */
const reservedClaims = new Set(['iss', 'aud', 'sub', 'exp', 'nbf', 'iat', 'jti'])
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
/** An explicit loopback http issuer: `http://127.0.0.1:PORT` or `http://[::1]:PORT`, with a path or not. */
const loopbackIssuer = /^http:\/\/(127\.0\.0\.1|\[::1\]):([0-9]{1,5})(\/[^?#]*)?$/

/** Why `text` cannot be a trusted issuer, or undefined when it can. */
export function issuerProblem(text: string): string | undefined {
  if (text.length > 512 || controlCharacters.test(text) || /\s/.test(text))
    return 'the issuer must be a URL of at most 512 characters without spaces'
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'the issuer is not a URL'
  }
  if (url.username || url.password || url.search || url.hash || text.includes('?') || text.includes('#'))
    return 'the issuer may not hold credentials, a query or a fragment'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:' && loopbackIssuer.test(text) && Number(loopbackIssuer.exec(text)![2]) > 0)
    return undefined
  return 'the issuer must be https:// (or http://127.0.0.1:PORT or http://[::1]:PORT, written so)'
}

function plainText(label: string, value: string | undefined, max: number): string {
  if (value === undefined || value === '') throw new UsageError(`${label} is required for OIDC trust`)
  if (value.length > max || controlCharacters.test(value)) {
    throw new UsageError(`${label} must be at most ${max} characters without control characters`)
  }
  return value
}

/** Checks an admin's OIDC trust input; throws UsageError naming the first problem. */
export function parseOidcTrust(input: OidcTrustInput): OidcTrust {
  const issuer = plainText('--oidc-issuer', input.issuer, 512)
  const problem = issuerProblem(issuer)
  if (problem)
    throw new UsageError(problem, { hint: 'e.g. --oidc-issuer https://token.actions.githubusercontent.com' })
  const audience = plainText('--oidc-audience', input.audience, 256)
  const subject = plainText('--oidc-subject', input.subject, 512)
  const subjectProblem = subjectPatternProblem(subject)
  if (subjectProblem)
    throw new UsageError(subjectProblem, { hint: 'e.g. repo:acme/stack:ref:refs/heads/main' })
  const claims: [string, string][] = []
  for (const pair of input.claims ?? []) {
    const equals = pair.indexOf('=')
    const name = equals < 0 ? pair : pair.slice(0, equals)
    if (equals < 0 || !claimNamePattern.test(name)) {
      throw new UsageError(`--oidc-claim '${pair.slice(0, 80)}' is not key=value`, {
        hint: 'e.g. --oidc-claim environment=prod (key: letters, digits, _ . : -)',
      })
    }
    if (reservedClaims.has(name))
      throw new UsageError(`--oidc-claim cannot name ${name}: it has its own check`)
    if (claims.some(([known]) => known === name)) throw new UsageError(`--oidc-claim names ${name} twice`)
    claims.push([name, plainText(`--oidc-claim ${name}`, pair.slice(equals + 1), 256)])
  }
  return { issuer, audience, subject, claims }
}

/** The stored form: canonical JSON (fixed key order), what the row MAC covers. */
export function encodeOidcTrust(trust: OidcTrust): string {
  return JSON.stringify({
    issuer: trust.issuer,
    audience: trust.audience,
    subject: trust.subject,
    claims: trust.claims,
  })
}

/** The trust of a stored column (null: the identity trusts no OIDC token). */
export function decodeOidcTrust(text: string | null | undefined): OidcTrust | undefined {
  if (text === null || text === undefined) return undefined
  const parsed = JSON.parse(text) as OidcTrust
  return {
    issuer: String(parsed.issuer),
    audience: String(parsed.audience),
    subject: String(parsed.subject),
    claims: Array.isArray(parsed.claims)
      ? parsed.claims.map(([name, value]) => [String(name), String(value)])
      : [],
  }
}
