/**
 * How a built-in rotator (`vault rotate --rotator postgres|mysql`) fails, one class per kind, each with
 * its ERR_ code and the exit code README's table documents. A message holds the database's or its
 * client's own words (the first line), never a password.
 */
import { ExitCode, NotConfiguredError, UnreachableError, UsageError, VaultError } from '../../errors.js'

/**
 * A password the database, or the way vault hands it over, cannot carry intact (a NUL character; a
 * line break for a client inside a compose service). Refused before anything is sent: exit 2.
 */
export class RotatorPasswordError extends UsageError {
  override name = 'RotatorPasswordError'
  override readonly code: string = 'ERR_ROTATOR_PASSWORD'
}

/**
 * The compose service has no database client the rotator can run (`psql`; `mariadb` or `mysql`): exit
 * 3, as for a missing setting. Nothing was sent.
 */
export class RotatorClientMissingError extends NotConfiguredError {
  override name = 'RotatorClientMissingError'
  override readonly code: string = 'ERR_ROTATOR_NO_CLIENT'
}

/** The exit code a client-choosing shell prologue ends with when the service has none of the clients. */
export const clientMissingExitCode = 127

/** Throws RotatorClientMissingError when a `compose exec` ended because the service has no client. */
export function checkClientPresent(
  rotator: string,
  service: string,
  clients: string,
  result: { exitCode: number },
): void {
  if (result.exitCode === clientMissingExitCode)
    throw new RotatorClientMissingError(
      `${rotator} rotator: the service ${service} has no database client (${clients} not found in its container)`,
      {
        hint: `run the rotator in the database's own service (--rotator-service), or reach the database from this machine with --rotator-url`,
      },
    )
}

/**
 * The database cannot be reached, or does not accept the current password (the vault's value): exit 7.
 * Nothing was changed.
 */
export class RotatorLoginError extends UnreachableError {
  override name = 'RotatorLoginError'
  override readonly code: string = 'ERR_ROTATOR_LOGIN'
}

/**
 * The database refused the new password: the change itself (a password policy, a missing privilege), or
 * a fresh login with it, after which the old one was put back. Nothing was changed, so it exits 10 like
 * a failing rotation hook.
 */
export class RotatorRefusedError extends VaultError {
  override name = 'RotatorRefusedError'
  override readonly code: string = 'ERR_ROTATOR_REFUSED'
  override readonly exitCode = ExitCode.findings
}

/**
 * A fresh login with the new password failed and the old one could not be put back: the database may
 * hold a password the vault does not (the vault was not changed). Exit 12: it needs a person.
 */
export class RotatorRestoreError extends VaultError {
  override name = 'RotatorRestoreError'
  override readonly code: string = 'ERR_ROTATOR_RESTORE'
  override readonly exitCode = ExitCode.databaseDiverged
}

/** The first line of a driver's or client's error, the part that says what the database said. */
export function firstErrorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.trim().split('\n')[0] ?? ''
}

/**
 * The line of a database client's stderr that says what failed: the last `ERROR`/`FATAL`/client line,
 * never psql's `LINE n:` echo of the statement (which would hold the password) or its caret.
 */
export function clientErrorLine(stderr: string): string {
  const lines = stderr
    .trim()
    .split('\n')
    .map((line) => line.trim())
  const said = lines.filter((line) => /^(ERROR|FATAL|psql:|mysql:|mariadb:)/i.test(line))
  return said.at(-1) ?? 'no error message'
}
