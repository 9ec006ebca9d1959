/**
 * A built-in rotator changes a password inside the database itself, so the database and the vault never
 * disagree: `apply` authenticates with the current password, changes it, and proves a fresh login with
 * the new one (putting the old one back if that login fails); `revert` puts the old one back when a
 * later step of the rotation fails.
 */
import { VaultError } from '../../errors.js'
import {
  RotatorLoginError,
  RotatorPasswordError,
  RotatorRefusedError,
  RotatorRestoreError,
  clientErrorLine,
  firstErrorLine,
} from './errors.js'

export interface DatabaseRotator {
  /** `postgres` or `mysql`, for reports. */
  name: string
  /** Changes `current` to `next` inside the database and checks a fresh login with `next`. */
  apply(current: string, next: string): Promise<void>
  /** Changes `next` back to `current` (authenticating with `next`). */
  revert(current: string, next: string): Promise<void>
}

/** Where a rotator reaches the database: a URL (the password in it is ignored), or a compose service. */
export type RotatorTarget =
  { kind: 'url'; url: string } | { kind: 'service'; service: string; user?: string; exec: ServiceExec }

/** Runs a command inside a compose service (`compose exec -T`) with `input` on stdin. */
export type ServiceExec = (
  service: string,
  argv: string[],
  options: { input: string },
) => Promise<{ exitCode: number; stdout: string; stderr: string }>

/**
 * A shell prologue that reads the first stdin line into the variable `name` and exports it: a password
 * reaches the database client through stdin, never an argv or compose's command line.
 */
export function passwordFromStdin(name: string, command: string): string[] {
  return ['sh', '-c', `IFS= read -r ${name}; export ${name}; ${command}`, 'sh']
}

/** Refuses a value no database client path carries intact (a NUL byte); returns it otherwise. */
export function checkPassword(password: string): string {
  if (password.includes('\0'))
    throw new RotatorPasswordError('a database password cannot hold a NUL character', {
      hint: 'give vault rotate a value without one (--value on stdin), or let it generate one',
    })
  return password
}

/** `password` as the first stdin line of a passwordFromStdin command; refuses a line break in it. */
export function passwordLine(password: string): string {
  if (/[\r\n]/.test(password))
    throw new RotatorPasswordError(
      'a password given to a database client in a service cannot hold a line break',
      { hint: 'use --rotator-url, which takes any password without a NUL, or a value without a line break' },
    )
  return `${password}\n`
}

/** What the URL path needs of a database client's session. */
export interface RotatorSession {
  query(sql: string): Promise<unknown>
  end(): Promise<void>
}

/** How one kind of database is reached by URL and told a new password. */
export interface UrlPasswordChange<Session extends RotatorSession> {
  /** The rotator's name, for messages. */
  rotator: string
  /** What to check when the current password does not log in. */
  hint: string
  connect(password: string): Promise<Session>
  setPassword(session: Session, password: string): Promise<void>
}

/**
 * Changes the password over a session opened with the current one (`from`), then checks that a fresh
 * login with the new one (`to`) works; if it does not, the same session puts the old password back.
 * Failures: RotatorLoginError (the current password does not log in), RotatorRefusedError (the change
 * or the fresh login refused; nothing changed), RotatorRestoreError (and the old one not put back).
 */
export async function changePasswordByUrl<Session extends RotatorSession>(
  database: UrlPasswordChange<Session>,
  { from, to }: { from: string; to: string },
): Promise<void> {
  const { rotator } = database
  const session = await database.connect(from).catch((error: unknown) => {
    throw new RotatorLoginError(
      `${rotator} rotator: cannot log in with the current password: ${firstErrorLine(error)}`,
      { hint: database.hint },
    )
  })
  try {
    await database.setPassword(session, to).catch((error: unknown) => {
      if (error instanceof VaultError) throw error
      throw new RotatorRefusedError(
        `${rotator} rotator: the database refused the new password: ${firstErrorLine(error)}`,
        { hint: refusedHint },
      )
    })
    const failed = await freshLogin(database, to)
    if (failed === undefined) return
    await database.setPassword(session, from).catch((error: unknown) => {
      throw new RotatorRestoreError(
        `${rotator} rotator: a fresh login with the new password failed and the old one could not be put back: ${firstErrorLine(error)}`,
        { hint: restoreHint },
      )
    })
    throw new RotatorRefusedError(
      `${rotator} rotator: a fresh login with the new password failed, the old one is back: ${firstErrorLine(failed)}`,
      { hint: refusedHint },
    )
  } finally {
    await session.end().catch(() => undefined)
  }
}

/** What a refused rotation tells the user to check. */
export const refusedHint =
  "nothing was changed; check the database's password policy and how it authenticates the user (e.g. pg_hba.conf)"

/** What a rotation that left the database with the new password tells the user to do. */
export const restoreHint =
  "the vault still holds the old password; set the database user's password to it by hand (ALTER ROLE / SET PASSWORD)"

/** Undefined when a new session logs in with `password` and runs a statement; the failure otherwise. */
async function freshLogin<Session extends RotatorSession>(
  database: UrlPasswordChange<Session>,
  password: string,
): Promise<unknown> {
  try {
    const check = await database.connect(password)
    try {
      await check.query('SELECT 1')
    } finally {
      await check.end().catch(() => undefined)
    }
    return undefined
  } catch (error) {
    return error
  }
}

/**
 * After a fresh login with the new password failed inside a service: `restore` runs the client that
 * puts the old password back. Throws RotatorRefusedError when it did (nothing changed),
 * RotatorRestoreError when it did not.
 */
export async function restoreInService(
  rotator: string,
  restore: () => Promise<{ exitCode: number; stderr: string }>,
  failure: string,
): Promise<never> {
  const restored = await restore()
  if (restored.exitCode !== 0)
    throw new RotatorRestoreError(
      `${rotator} rotator: ${failure}; the old password could not be put back: ${clientErrorLine(restored.stderr)}`,
      { hint: restoreHint },
    )
  throw new RotatorRefusedError(`${rotator} rotator: ${failure}; the old password is back`, {
    hint: refusedHint,
  })
}
