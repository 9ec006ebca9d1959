/**
 * Bearer tokens for humans (`vault login --user`): a sign-in opens a CLI session and answers an HS256
 * JWT (the same `jose` machinery as machine tokens) whose `sub` is `user:NAME`, `pid` is `*` and `jti`
 * is the session id, so sign-out, a password change and the account's removal end the token at once.
 * The token lives as long as the session's absolute expiry; the session's idle expiry applies as well.
 */
import type { ApiRequest } from '../http/api.js'
import { unauthorized, verifyBearer } from '../tokens/auth.js'
import type { VaultContext } from '../context.js'
import { signAccessToken } from '../tokens/tokens.js'
import { actingAs } from './actor.js'
import type { AdminCall } from '../operations/call.js'
import { endSession, openSession, readSession, type HumanSession, type SignInAttempt } from './session.js'

/** The `pid` claim of a human's token: humans are not bound to one project. */
export const humanTokenProject = '*'
const humanSubject = 'user:'

export interface HumanToken {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  user: { username: string; role: HumanSession['role'] }
}

/** Signs a human in (the lockout rules of signInHuman) and answers a bearer token for the CLI. */
export async function issueHumanToken(context: VaultContext, attempt: SignInAttempt): Promise<HumanToken> {
  const session = await openSession(context, attempt, 'cli')
  const ttl = Math.min(
    Math.floor((session.expiresAt.getTime() - Date.now()) / 1000),
    context.timings.session.maxSeconds,
  )
  const { token } = await signAccessToken(
    context.jwtSecret,
    { identityId: `${humanSubject}${session.username}`, projectId: humanTokenProject, jti: session.id },
    ttl,
  )
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: ttl,
    user: { username: session.username, role: session.role },
  }
}

/**
 * The human behind a request's bearer token, or a 401: a machine token, an ended or expired session,
 * or a session whose account was renamed or removed.
 */
export async function humanOfRequest(context: VaultContext, request: ApiRequest): Promise<HumanSession> {
  const claims = await verifyBearer(context, request)
  const session =
    claims.sub.startsWith(humanSubject) && claims.pid === humanTokenProject
      ? await readSession(context, claims.jti, 'cli')
      : null
  if (session && `${humanSubject}${session.username}` === claims.sub) return session
  await context.failedAuth.record({
    projectId: null,
    actor: claims.sub.startsWith(humanSubject) ? claims.sub : `identity:${claims.sub}`,
    action: 'auth.token',
    result: 'denied',
    requestId: request.origin.requestId,
    ip: request.origin.ip,
    detail: claims.sub.startsWith(humanSubject)
      ? 'ended or expired session'
      : 'a machine token on the admin API',
  })
  throw unauthorized(
    'this endpoint needs a signed-in human (vault login --user NAME); the session ended or expired',
  )
}

/** The admin-operation frame of a request's human. */
export async function callOfRequest(context: VaultContext, request: ApiRequest): Promise<AdminCall> {
  const human = await humanOfRequest(context, request)
  return {
    vault: { driver: context.driver, keyring: context.keyring },
    actor: actingAs(human),
    origin: { requestId: request.origin.requestId, ip: request.origin.ip },
  }
}

/** Ends the session behind a request's human token (sign out); a 401 when it had already ended. */
export async function signOutRequest(context: VaultContext, request: ApiRequest): Promise<void> {
  const human = await humanOfRequest(context, request)
  await endSession(context, human.id)
}
