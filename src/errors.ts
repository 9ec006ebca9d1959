/**
 * The error family of vault and the exit-code table. Every failure a user can cause is one of these,
 * with a stable `name`, a Node-style `code` and the exit code the CLI ends with. No oclif import here:
 * domain modules throw these, the base command maps them to output and exit codes.
 */

/** Documented exit codes (README, "Exit codes"). `vault run` passes the child's code through instead. */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notConfigured: 3,
  auth: 4,
  notFound: 5,
  conflict: 6,
  unreachable: 7,
  integrity: 8,
  io: 9,
  /** The check ran and found something: a secret due, a failed doctor check, a denied request, a render
   * --check error, a rotation that was rolled back. Distinct from 1 (a bug) so a script can tell them apart. */
  findings: 10,
  /** `vault rotate`: the new value was written but the services did not come back, so it was rolled back. */
  rolledBack: 11,
  /** `vault rotate --rotator`: the database refused the new password and could not be given the old one
   * back, so it may hold a password the vault does not (the vault was not changed). */
  databaseDiverged: 12,
} as const

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

export interface VaultErrorOptions {
  cause?: unknown
  /** A short suggestion of what to do, printed after the message. */
  hint?: string
}

/**
 * Marks vault's errors in a way a second copy of this module also reads: the proxy's bundle loads
 * tsc's compose modules (with their own copy of these classes) only when a compose policy is given.
 */
const vaultErrorMark = Symbol.for('vault.VaultError')

/** Base class: a message that says what happened, plus a hint of what to do. */
export class VaultError extends Error {
  override name = 'VaultError'
  readonly [vaultErrorMark] = true
  readonly code: string = 'ERR_VAULT'
  readonly exitCode: ExitCodeValue = ExitCode.unexpected
  readonly hint?: string

  constructor(message: string, options: VaultErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.hint = options.hint
  }
}

/** Bad flags, arguments or input files. */
export class UsageError extends VaultError {
  override name = 'UsageError'
  override readonly code: string = 'ERR_USAGE'
  override readonly exitCode = ExitCode.usage
}

/** Missing configuration: no domain, no credentials, no project, no ENCRYPTION_KEY. */
export class NotConfiguredError extends VaultError {
  override name = 'NotConfiguredError'
  override readonly code: string = 'ERR_NOT_CONFIGURED'
  override readonly exitCode = ExitCode.notConfigured
}

/** Credentials refused, token expired or revoked, permission denied. */
export class AuthError extends VaultError {
  override name = 'AuthError'
  override readonly code: string = 'ERR_AUTH'
  override readonly exitCode = ExitCode.auth
}

/** A secret, environment, project, identity or file that does not exist. */
export class NotFoundError extends VaultError {
  override name = 'NotFoundError'
  override readonly code: string = 'ERR_NOT_FOUND'
  override readonly exitCode = ExitCode.notFound
}

/** A stale version (If-Match), an existing value not overwritten, a name already taken. */
export class ConflictError extends VaultError {
  override name = 'ConflictError'
  override readonly code: string = 'ERR_CONFLICT'
  override readonly exitCode = ExitCode.conflict
}

/** The vault, the engine or the database cannot be reached. */
export class UnreachableError extends VaultError {
  override name = 'UnreachableError'
  override readonly code: string = 'ERR_UNREACHABLE'
  override readonly exitCode = ExitCode.unreachable
}

/** Data that fails a check: a wrong key, a tampered ciphertext, a corrupt archive, a broken audit chain. */
export class IntegrityError extends VaultError {
  override name = 'IntegrityError'
  override readonly code: string = 'ERR_INTEGRITY'
  override readonly exitCode = ExitCode.integrity
}

/** A local file-system failure outside the user's input: a full disk, a write that failed midway. */
export class IoError extends VaultError {
  override name = 'IoError'
  override readonly code: string = 'ERR_IO'
  override readonly exitCode = ExitCode.io
}

/** A VaultError of this module or of another copy of it (see vaultErrorMark). */
export function isVaultError(error: unknown): error is VaultError {
  return (
    error instanceof VaultError ||
    (typeof error === 'object' &&
      error !== null &&
      (error as { [vaultErrorMark]?: unknown })[vaultErrorMark] === true)
  )
}

/** The exit code for any thrown value: a VaultError's own, 1 for anything else. */
export function exitCodeOf(error: unknown): number {
  return isVaultError(error) ? error.exitCode : ExitCode.unexpected
}
