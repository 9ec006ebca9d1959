/**
 * How console handlers run: each gets the request and the signed-in human (or is public), and any
 * failure becomes an HTML page with the right status and a one-line message (never a stack, never a
 * value); a missing or expired session becomes a redirect to the sign-in page.
 */
import type { ApiRequest, ApiResponse, Handler } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { ConflictError, IntegrityError, NotFoundError, UsageError, VaultError } from '../../errors.js'
import { ApiError } from '../http/http.js'
import { unexpectedFailure } from '../http/failures.js'
import type { HumanActor } from '../secrets/human-secrets.js'
import { actingAs, ForbiddenError } from '../humans/actor.js'
import { requireAdmin, type AdminCall } from '../operations/call.js'
import { humanActorLabel, type HumanSession } from '../humans/session.js'
import { pageResponse, redirect } from './headers.js'
import { html } from './html.js'
import { layout } from './layout.js'
import { paths } from './paths.js'
import { requireSession, SignInRequired } from './guard.js'

function statusOf(error: unknown): number {
  if (error instanceof ApiError) return error.status
  if (error instanceof ForbiddenError) return 403
  if (error instanceof NotFoundError) return 404
  if (error instanceof ConflictError) return 409
  if (error instanceof UsageError) return 400
  if (error instanceof IntegrityError) return 500
  return 500
}

/** The HTML answer of a failure (an unexpected one is logged; a storage fault is a 503). */
export function errorPage(
  context: VaultContext,
  error: unknown,
  request: ApiRequest,
  session?: HumanSession,
): ApiResponse {
  const failure =
    error instanceof VaultError
      ? undefined
      : unexpectedFailure(error, {
          engine: context.driver.engine,
          requestId: request.origin.requestId,
          what: 'console request',
        })
  const status = failure?.status ?? statusOf(error)
  const message = failure?.message ?? (error as VaultError).message
  return pageResponse(
    status,
    layout({
      title: status === 403 ? 'Refused' : status === 404 ? 'Not found' : 'Something went wrong',
      session,
      body: html`<p class="notice error" role="alert">${message}</p>
        <p><a href="${paths.projects}">Back to the projects</a></p>`,
    }),
    failure?.headers,
  )
}

/** A public page (sign-in): failures become error pages. */
export function publicPage(context: VaultContext, handler: Handler): Handler {
  return async (request) => {
    try {
      return await handler(request)
    } catch (error) {
      return errorPage(context, error, request)
    }
  }
}

/** A page for a signed-in human (`admin` only when `adminOnly`). */
export function sessionPage(
  context: VaultContext,
  handler: (request: ApiRequest, session: HumanSession) => Promise<ApiResponse>,
  options: { adminOnly?: boolean } = {},
): Handler {
  return async (request) => {
    let session: HumanSession | undefined
    try {
      session = await requireSession(context, request)
      if (options.adminOnly) {
        // audits the refusal (as the admin API does) before the 403
        await requireAdmin(callOf(context, request, session), {
          action: `console ${request.method} ${request.url.pathname.slice(0, 200)}`,
        })
      }
      return await handler(request, session)
    } catch (error) {
      if (error instanceof SignInRequired) return redirect(paths.signIn)
      return errorPage(context, error, request, session)
    }
  }
}

/** The audit identity of a human's request. */
export function actorOf(context: VaultContext, request: ApiRequest, session: HumanSession): HumanActor {
  return {
    context,
    actor: humanActorLabel(session),
    requestId: request.origin.requestId,
    ip: request.origin.ip,
  }
}

/** The admin-operation call of a human's request (operations/ check the role and audit it). */
export function callOf(context: VaultContext, request: ApiRequest, session: HumanSession): AdminCall {
  return {
    vault: context,
    actor: actingAs(session),
    origin: { requestId: request.origin.requestId, ip: request.origin.ip },
  }
}
