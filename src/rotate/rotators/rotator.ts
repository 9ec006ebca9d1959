/**
 * A built-in rotator changes a password inside the database itself, so the database and the vault never
 * disagree: `apply` authenticates with the current password, changes it, and proves a fresh login with
 * the new one (putting the old one back if that login fails); `revert` puts the old one back when a
 * later step of the rotation fails.
 */
import { UnreachableError, VaultError } from '../../errors.js'

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
  if (password.includes('\0')) throw new VaultError('a database password cannot hold a NUL character')
  return password
}

/** `password` as the first stdin line of a passwordFromStdin command; refuses a line break in it. */
export function passwordLine(password: string): string {
  if (/[\r\n]/.test(password))
    throw new VaultError('a password given to a database client in a service cannot hold a line break')
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
 */
export async function changePasswordByUrl<Session extends RotatorSession>(
  database: UrlPasswordChange<Session>,
  { from, to }: { from: string; to: string },
): Promise<void> {
  const session = await database.connect(from).catch((error: unknown) => {
    throw new UnreachableError(
      `${database.rotator} rotator: cannot log in with the current password: ${(error as Error).message}`,
      { hint: database.hint },
    )
  })
  try {
    await database.setPassword(session, to)
    const check = await database.connect(to).catch(async (error: unknown) => {
      await database.setPassword(session, from)
      throw new VaultError(
        `${database.rotator} rotator: a fresh login with the new password failed, the old one is back: ${(error as Error).message}`,
      )
    })
    await check.query('SELECT 1')
    await check.end()
  } finally {
    await session.end().catch(() => undefined)
  }
}
