/**
 * The console's trust boundary for browsers: the `vault_session` cookie (HttpOnly, SameSite=Strict,
 * Path=/, Secure under TLS, the server's or a gateway's), the pre-session cookie that protects the
 * sign-in form, reading a form body, and the CSRF check of every state-changing form (a cross-site fetch
 * is refused outright, and the form's token must equal the session's, compared in constant time).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { header, type ApiRequest } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { ApiError, readFormOrJson } from '../http/http.js'
import { csrfTokenMatches, readSession, type HumanSession } from '../humans/session.js'

export const sessionCookieName = 'vault_session'
export const signInCookieName = 'vault_sign_in'

/** Raised when a page needs a signed-in human: the console answers with a redirect to sign in. */
export class SignInRequired extends ApiError {
  override name = 'SignInRequired'
  constructor() {
    super(401, 'sign_in_required', 'sign in first')
  }
}

/** The cookies of a request (first occurrence of each name wins). */
export function readCookies(request: Pick<ApiRequest, 'headers'>): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const part of (header(request, 'cookie') ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at <= 0) continue
    const name = part.slice(0, at).trim()
    if (!cookies.has(name)) cookies.set(name, part.slice(at + 1).trim())
  }
  return cookies
}

/**
 * The name a console cookie has on the wire: under https, `__Host-` first, which browsers accept only
 * from this host itself (Secure, Path=/, no Domain), so a sibling subdomain cannot plant a session or a
 * sign-in token the console would read; over plain http the prefix cannot be used.
 */
function wireName(context: VaultContext, name: string): string {
  return context.httpsForBrowsers ? `__Host-${name}` : name
}

/** The value of the console cookie `name` (sessionCookieName, signInCookieName) in a request. */
export function readCookie(context: VaultContext, request: Pick<ApiRequest, 'headers'>, name: string) {
  return readCookies(request).get(wireName(context, name))
}

/**
 * A Set-Cookie value: HttpOnly, SameSite=Strict, Path=/, and Secure with the `__Host-` prefix when
 * browsers use https (the server's TLS or the gateway's in front of --behind-proxy); `maxAge` 0 clears it.
 */
export function cookie(context: VaultContext, name: string, value: string, maxAge: number): string {
  return [
    `${wireName(context, name)}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${Math.max(0, Math.floor(maxAge))}`,
    ...(context.httpsForBrowsers ? ['Secure'] : []),
  ].join('; ')
}

/** The signed-in human of a request, or SignInRequired. */
export async function requireSession(context: VaultContext, request: ApiRequest): Promise<HumanSession> {
  const id = readCookie(context, request, sessionCookieName)
  const session = id ? await readSession(context, id) : null
  if (!session) throw new SignInRequired()
  return session
}

/** A new random token for the sign-in form's cookie and hidden field. */
export function newSignInToken(): string {
  return randomBytes(32).toString('base64url')
}

/** Whether two tokens are equal, in time independent of where they differ (and of their lengths). */
export function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined || expected === '') return false
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(given), digest(expected))
}

/** A browser that says the request comes from another site (Sec-Fetch-Site) never changes anything. */
function refuseCrossSite(request: ApiRequest): void {
  const site = header(request, 'sec-fetch-site')
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new ApiError(403, 'csrf', 'a form from another site was refused; nothing was changed')
  }
}

/** Reads a url-encoded form body (415 for anything else). */
export async function readForm(request: ApiRequest): Promise<Record<string, string>> {
  const type = (header(request, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') {
    throw new ApiError(415, 'unsupported_media_type', 'the console takes url-encoded forms')
  }
  return readFormOrJson(request)
}

/** The form of a state-changing post by the signed-in human, after the cross-site and CSRF checks. */
export async function checkedForm(
  request: ApiRequest,
  session: HumanSession,
): Promise<Record<string, string>> {
  refuseCrossSite(request)
  const form = await readForm(request)
  if (typeof form.csrf !== 'string' || !csrfTokenMatches(session, form.csrf)) {
    throw new ApiError(403, 'csrf', 'the form is stale or forged (CSRF token mismatch); nothing was changed')
  }
  return form
}

/** The sign-in form after its checks: same site, and the hidden token equal to the pre-session cookie. */
export async function checkedSignInForm(
  context: VaultContext,
  request: ApiRequest,
): Promise<Record<string, string>> {
  refuseCrossSite(request)
  const form = await readForm(request)
  const expected = readCookie(context, request, signInCookieName) ?? ''
  if (!sameToken(form.csrf, expected)) {
    throw new ApiError(403, 'csrf', 'the sign-in form is stale or forged; reload the page and try again')
  }
  return form
}

/** A destructive change's form must come from its confirm page (`confirm=yes`). */
export function requireConfirmation(form: Record<string, string>): void {
  if (form.confirm !== 'yes') {
    throw new ApiError(400, 'confirmation_required', 'confirm the change on its confirmation page first')
  }
}
