/**
 * Human sign-in and sessions. A password (argon2id) is checked under the lockout rules of machine
 * logins (the per-(user, source) growing delay of LoginThrottle; an unknown or malformed user name costs
 * a check against a dummy hash and fails with the same error), and a success opens a session: a random
 * 32-byte id (base64url) that is stored hashed, with an idle and an absolute expiry, ended on sign-out,
 * on a password change and on the account's removal. The console keeps the id in its cookie; the CLI
 * gets a bearer token whose jti is such an id (see human-token.ts). A session carries the stamp of the
 * password hash it was opened with (keys/stamp.ts), re-checked on every use, and is opened only if that
 * hash is still the account's when the session row is written (under the account row's lock): a
 * sign-in with the old password still in flight when the password changes opens nothing that lasts.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { AuthError } from '../../errors.js'
import { appendAudit } from '../audit/audit.js'
import { sourceKey } from '../http/client-address.js'
import type { VaultContext } from '../context.js'
import type { SqlExecutor } from '../store/index.js'
import { hmacSha256 } from '../keys/hmac.js'
import { credentialStamp, stampMatches } from '../keys/stamp.js'
import { findAccountById, findAccountByName, usernamePattern, type HumanRole } from './accounts.js'
import { dummyPasswordHash, maxPasswordLength, passwordMatches } from './password-hash.js'
import { endSessionRow, findSession, insertSession, touchSession, type SessionKind } from './session-rows.js'

/** How often a session's last use is written at most (a shorter idle expiry shortens it). */
const touchEveryMs = 30_000

export interface HumanSession {
  /** Opaque random session id (what the cookie holds); never logged. */
  id: string
  username: string
  role: HumanRole
  /** Per-session CSRF token the console puts in every form (compare with timingSafeEqual). */
  csrfToken: string
  /** The absolute expiry (the idle expiry comes earlier when the session is left alone). */
  expiresAt: Date
}

export interface SignInAttempt {
  username: string
  password: string
  /** A TOTP code; reserved, not checked yet (no account can enrol a second factor). */
  totp?: string
  clientAddress: string
  requestId?: string
}

/** A refused sign-in: wrong user name or password (401), or a source still waiting (429). */
export class SignInError extends AuthError {
  override name = 'SignInError'
  override readonly code: string = 'ERR_SIGN_IN'
  constructor(
    message: string,
    /** Seconds to wait before the next attempt; 0 when the credentials were wrong. */
    readonly retryAfterSeconds = 0,
  ) {
    super(message)
  }
}

const sessionIdForm = /^[A-Za-z0-9_-]{43}$/

/** The CSRF token of a session: an HMAC of its id, so nothing more is stored. */
function csrfTokenOf(context: VaultContext, sessionId: string): string {
  return hmacSha256(context.keyring.rowMacKey)
    .update(`vault-console-csrf-v1\0${sessionId}`)
    .digest('base64url')
}

/** Whether `token` is the CSRF token of `session` (constant time). */
export function csrfTokenMatches(session: HumanSession, token: string): boolean {
  const expected = Buffer.from(session.csrfToken)
  const given = Buffer.from(token)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The audit actor of a human: `user:NAME`. */
export function humanActorLabel(human: { username: string }): string {
  return `user:${human.username}`
}

/**
 * Checks the password under the lockout rules and opens a session of `kind`. Every attempt counts as
 * failed until it succeeds, so parallel guesses cannot slip past the delay.
 */
export async function openSession(
  context: VaultContext,
  attempt: SignInAttempt,
  kind: SessionKind,
): Promise<HumanSession> {
  const { username, password } = attempt
  const wellFormed = usernamePattern.test(username) && password.length <= maxPasswordLength
  const actor = wellFormed ? humanActorLabel({ username }) : 'user:(malformed name)'
  const pair = { clientId: actor, ip: sourceKey(attempt.clientAddress) }
  const failed = (detail: string) =>
    context.failedAuth.record({
      projectId: null,
      actor,
      action: 'auth.signin',
      result: 'failed',
      requestId: attempt.requestId,
      ip: attempt.clientAddress,
      detail,
    })
  const wait = context.loginThrottle.wait(pair)
  if (wait > 0) {
    await failed('throttled after repeated failed sign-ins')
    throw new SignInError('too many failed sign-ins from this address; retry later', wait)
  }
  context.loginThrottle.failed(pair)
  const { rowMacKey } = context.keyring
  const account = wellFormed
    ? await context.driver.transaction((tx) => findAccountByName(tx, rowMacKey, username))
    : undefined
  const matches = await passwordMatches(
    wellFormed ? password : '',
    account?.passwordHash ?? (await dummyPasswordHash()),
  )
  if (!account || !matches) {
    await failed('wrong user name or password')
    throw new SignInError('wrong user name or password')
  }
  const now = Date.now()
  const session: HumanSession = {
    id: randomBytes(32).toString('base64url'),
    username: account.username,
    role: account.role,
    csrfToken: '',
    expiresAt: new Date(now + context.timings.session.maxSeconds * 1000),
  }
  session.csrfToken = csrfTokenOf(context, session.id)
  const opened = await context.driver.transaction(async (tx) => {
    // the account row's lock orders this after a password change in flight, which it then sees
    await tx.lockRows(`SELECT id FROM admins WHERE id = ?`, [account.id])
    const current = await findAccountById(tx, rowMacKey, account.id)
    if (current?.passwordHash !== account.passwordHash) return false
    await insertSession(tx, rowMacKey, {
      sessionId: session.id,
      userId: account.id,
      kind,
      now,
      expiresAt: session.expiresAt.getTime(),
      passwordStamp: credentialStamp(rowMacKey, account.passwordHash),
    })
    await appendAudit(tx, context.keyring.auditKey, {
      projectId: null,
      actor: humanActorLabel(account),
      action: 'auth.signin',
      target: kind,
      result: 'ok',
      requestId: attempt.requestId,
      ip: attempt.clientAddress,
    })
    return true
  })
  if (!opened) {
    await failed('the password changed while signing in')
    throw new SignInError('wrong user name or password')
  }
  context.loginThrottle.succeeded(pair)
  return session
}

/** Checks a human's password (lockout rules) and opens a console session. */
export function signInHuman(context: VaultContext, attempt: SignInAttempt): Promise<HumanSession> {
  return openSession(context, attempt, 'console')
}

/** The live session with this id, or null (expired, idle too long, ended, unknown, or of another kind). */
export async function readSession(
  context: VaultContext,
  sessionId: string,
  kind: SessionKind = 'console',
): Promise<HumanSession | null> {
  if (typeof sessionId !== 'string' || !sessionIdForm.test(sessionId)) return null
  return context.driver.transaction((tx) => readSessionIn(context, tx, { sessionId, kind }))
}

/** readSession inside the caller's transaction. */
export async function readSessionIn(
  context: VaultContext,
  tx: SqlExecutor,
  wanted: { sessionId: string; kind: SessionKind },
): Promise<HumanSession | null> {
  const { sessionId } = wanted
  if (typeof sessionId !== 'string' || !sessionIdForm.test(sessionId)) return null
  const now = Date.now()
  const { rowMacKey } = context.keyring
  const row = await findSession(tx, rowMacKey, sessionId)
  if (!row || row.kind !== wanted.kind) return null
  const idleMs = context.timings.session.idleSeconds * 1000
  if (row.expiresAt <= now || row.lastSeenAt + idleMs <= now) return null
  const account = await findAccountById(tx, rowMacKey, row.userId)
  if (!account || !stampMatches(rowMacKey, row.passwordStamp, account.passwordHash)) return null
  if (now - row.lastSeenAt > Math.min(touchEveryMs, idleMs / 2)) await touchSession(tx, sessionId, now)
  return {
    id: sessionId,
    username: account.username,
    role: account.role,
    csrfToken: csrfTokenOf(context, sessionId),
    expiresAt: new Date(row.expiresAt),
  }
}

/** Ends the session (sign out); an unknown or already ended id is a no-op. */
export async function endSession(context: VaultContext, sessionId: string): Promise<void> {
  if (typeof sessionId !== 'string' || !sessionIdForm.test(sessionId)) return
  await context.driver.transaction(async (tx) => {
    const row = await findSession(tx, context.keyring.rowMacKey, sessionId)
    if (!row || !(await endSessionRow(tx, context.keyring.rowMacKey, sessionId))) return
    const account = await findAccountById(tx, context.keyring.rowMacKey, row.userId)
    await appendAudit(tx, context.keyring.auditKey, {
      projectId: null,
      actor: account ? humanActorLabel(account) : `user-id:${row.userId}`,
      action: 'auth.signout',
      target: row.kind,
      result: 'ok',
    })
  })
}
