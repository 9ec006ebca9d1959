/**
 * File-system failures of backup and restore turned into one clear line each (a full disk, no
 * permission, a missing directory), keeping the original error as the cause.
 */
import { IoError, NotFoundError, UsageError, VaultError } from '../errors.js'

/** A VaultError for a failed write of `path` (full disk, permissions, missing directory). */
export function fileWriteError(error: unknown, path: string): VaultError {
  if (error instanceof VaultError) return error
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOSPC' || code === 'EDQUOT' || isSqliteFull(error)) {
    return new IoError(`no space left on the device while writing ${path}; nothing was changed`, {
      cause: error,
      hint: 'free some space (or choose another location) and run the command again',
    })
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new UsageError(`cannot write ${path}: permission denied`, {
      cause: error,
      hint: 'choose a location you can write to',
    })
  }
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new NotFoundError(`cannot write ${path}: the directory does not exist`, {
      cause: error,
      hint: 'create the directory first',
    })
  }
  return new IoError(`cannot write ${path}: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  })
}

/** A VaultError for a failed read of `path`. */
export function fileReadError(error: unknown, path: string): VaultError {
  if (error instanceof VaultError) return error
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOENT') return new NotFoundError(`archive ${path} does not exist`, { cause: error })
  if (code === 'EACCES' || code === 'EPERM') {
    return new UsageError(`cannot read ${path}: permission denied`, { cause: error })
  }
  if (code === 'EISDIR')
    return new UsageError(`${path} is a directory, not a backup archive`, { cause: error })
  return new IoError(`cannot read ${path}: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  })
}

function isSqliteFull(error: unknown): boolean {
  const message = error instanceof Error ? error.message : ''
  return /database or disk is full|SQLITE_FULL/i.test(message)
}
