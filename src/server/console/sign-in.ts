/**
 * Signing in and out: the sign-in form (protected by a pre-session token: the hidden field must equal
 * the `vault_sign_in` cookie), the session cookie set on success, the same one-line refusal for an
 * unknown user and a wrong password, the lockout's wait shown as is, and signing out (a POST).
 */
import type { ApiRequest, ApiResponse } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { AuthError, VaultError } from '../../errors.js'
import { ApiError } from '../http/http.js'
import { endSession, SignInError, signInHuman } from '../humans/session.js'
import type { Resource } from '../http/router.js'
import {
  checkedForm,
  checkedSignInForm,
  cookie,
  newSignInToken,
  requireSession,
  sessionCookieName,
  signInCookieName,
} from './guard.js'
import { pageResponse, redirect } from './headers.js'
import { html } from './html.js'
import { layout, notice } from './layout.js'
import { paths } from './paths.js'
import { publicPage, sessionPage } from './respond.js'

function signInForm(context: VaultContext, options: { status: number; message?: string; username?: string }) {
  const token = newSignInToken()
  return pageResponse(
    options.status,
    layout({
      title: 'Sign in',
      body: html`${notice(options.message, 'error')}
        <form class="sign-in" method="post" action="${paths.signIn}">
          <input type="hidden" name="csrf" value="${token}" />
          <label
            >User name
            <input name="username" autocomplete="username" required value="${options.username ?? ''}"
          /></label>
          <label
            >Password <input name="password" type="password" autocomplete="current-password" required
          /></label>
          <label
            >One-time code (when enrolled)
            <input name="totp" inputmode="numeric" autocomplete="one-time-code"
          /></label>
          <button type="submit">Sign in</button>
        </form>`,
    }),
    { 'set-cookie': cookie(context, signInCookieName, token, 600) },
  )
}

function statusOfRefusal(error: unknown): number {
  if (error instanceof ApiError) return error.status
  return error instanceof AuthError ? 401 : 400
}

async function signIn(context: VaultContext, request: ApiRequest): Promise<ApiResponse> {
  const form = await checkedSignInForm(context, request)
  const username = (form.username ?? '').slice(0, 200)
  try {
    const session = await signInHuman(context, {
      username,
      password: form.password ?? '',
      totp: form.totp || undefined,
      clientAddress: request.origin.ip,
      requestId: request.origin.requestId,
    })
    const seconds = (session.expiresAt.getTime() - Date.now()) / 1000
    return redirect(paths.projects, { 'set-cookie': cookie(context, sessionCookieName, session.id, seconds) })
  } catch (error) {
    if (!(error instanceof VaultError)) throw error
    const wait = error instanceof SignInError ? error.retryAfterSeconds : 0
    const message = wait > 0 ? `${error.message} (retry in ${wait} s)` : error.message
    const answer = signInForm(context, { status: wait > 0 ? 429 : statusOfRefusal(error), message, username })
    if (wait > 0) answer.headers = { ...answer.headers, 'retry-after': String(wait) }
    return answer
  }
}

/** The sign-in and sign-out resources, and `/console` (to the projects, or to sign in). */
export function signInResources(context: VaultContext): Resource[] {
  return [
    {
      path: '/console',
      methods: { GET: async () => redirect(paths.projects) },
    },
    {
      path: paths.signIn,
      methods: {
        GET: publicPage(context, async (request) => {
          const signedIn = await requireSession(context, request).catch(() => undefined)
          return signedIn ? redirect(paths.projects) : signInForm(context, { status: 200 })
        }),
        POST: publicPage(context, (request) => signIn(context, request)),
      },
    },
    {
      path: paths.signOut,
      methods: {
        POST: sessionPage(context, async (request, session) => {
          await checkedForm(request, session)
          await endSession(context, session.id)
          return redirect(paths.signIn, { 'set-cookie': cookie(context, sessionCookieName, '', 0) })
        }),
      },
    },
  ]
}
