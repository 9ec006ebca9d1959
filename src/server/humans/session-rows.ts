/**
 * The rows of sign-in sessions (`human_sessions`): the id is stored as its SHA-256, never in the clear;
 * each row carries a row MAC over its owner, kind, start, absolute expiry and end, so a session row
 * written or revived in SQL by someone without ENCRYPTION_KEY is refused.
 */
import { createHash } from 'node:crypto'
import { rowMacMatches, sealRow } from '../keys/row-mac.js'
import type { SqlExecutor } from '../store/index.js'

/** A console session (cookie) or a CLI session (the jti of a bearer token). */
export type SessionKind = 'console' | 'cli'

export interface SessionRow {
  userId: string
  kind: SessionKind
  lastSeenAt: number
  expiresAt: number
  /** The stamp of the password hash the session was opened with (keys/stamp.ts); null before schema 4. */
  passwordStamp: string | null
}

/** The stored form of a session id. */
export function sessionKey(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex')
}

/** Records a new session (and forgets the sessions that ended or expired over a day ago). */
export async function insertSession(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  session: {
    sessionId: string
    userId: string
    kind: SessionKind
    now: number
    expiresAt: number
    passwordStamp: string
  },
): Promise<void> {
  const key = sessionKey(session.sessionId)
  const now = new Date(session.now).toISOString()
  const expires = new Date(session.expiresAt).toISOString()
  await tx.run(
    `INSERT INTO human_sessions (id, user_id, kind, created_at, last_seen_at, expires_at, password_stamp)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [key, session.userId, session.kind, now, now, expires, session.passwordStamp],
  )
  await sealRow(tx, rowMacKey, 'human_sessions', key)
  const dayAgo = new Date(session.now - 86_400_000).toISOString()
  await tx.run(`DELETE FROM human_sessions WHERE expires_at < ? OR ended_at < ?`, [dayAgo, dayAgo])
}

/** The live (not ended, MAC intact) session with this id, or undefined; expiry is the caller's to judge. */
export async function findSession(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  sessionId: string,
): Promise<SessionRow | undefined> {
  const [row] = await tx.all(
    `SELECT id, user_id, kind, created_at, last_seen_at, expires_at, ended_at, password_stamp, row_mac
     FROM human_sessions WHERE id = ?`,
    [sessionKey(sessionId)],
  )
  if (!row || row.ended_at !== null || !rowMacMatches(rowMacKey, 'human_sessions', row)) return undefined
  return {
    userId: String(row.user_id),
    kind: row.kind === 'cli' ? 'cli' : 'console',
    lastSeenAt: Date.parse(String(row.last_seen_at)),
    expiresAt: Date.parse(String(row.expires_at)),
    passwordStamp: typeof row.password_stamp === 'string' ? row.password_stamp : null,
  }
}

/** Moves the idle clock of a session forward. */
export async function touchSession(tx: SqlExecutor, sessionId: string, now: number): Promise<void> {
  await tx.run(`UPDATE human_sessions SET last_seen_at = ? WHERE id = ?`, [
    new Date(now).toISOString(),
    sessionKey(sessionId),
  ])
}

/** Ends a session (sign out); returns whether a live one was ended. */
export async function endSessionRow(tx: SqlExecutor, rowMacKey: Buffer, sessionId: string): Promise<boolean> {
  const key = sessionKey(sessionId)
  const changed = await tx.run(`UPDATE human_sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL`, [
    new Date().toISOString(),
    key,
  ])
  if (changed > 0) await sealRow(tx, rowMacKey, 'human_sessions', key)
  return changed > 0
}
