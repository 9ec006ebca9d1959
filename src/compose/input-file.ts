/**
 * Reading the text of one input file of a load (a compose file, an env file) with the limits a
 * hostile file name needs: a file named inside a compose file (`include`, `extends.file`, `env_file`)
 * must be a regular file (or `/dev/null`), one the user named on the command line may also be a pipe
 * or a device (`-f <(...)`, `--env-file /dev/stdin`), and none is read past `maxInputBytes`. A path
 * such as `/dev/zero`, `/dev/tty` or a FIFO nobody writes to would otherwise grow memory without end
 * or block the load for ever.
 */
import { closeSync, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs'
import { ComposeFileNotFoundError, ComposeInputError } from './errors.js'

/** Far above any real compose or env file; keeps a sparse or endless file from filling memory. */
export const maxInputBytes = 16 * 1024 * 1024

export interface ReadInputOptions {
  /** The user named this file (`-f`, `--env-file`): a pipe or a device is read too. */
  named?: boolean
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory'
  if (stats.isFIFO()) return 'a pipe'
  if (stats.isCharacterDevice()) return 'a character device'
  if (stats.isBlockDevice()) return 'a block device'
  if (stats.isSocket()) return 'a socket'
  return 'not a regular file'
}

function unreadable(file: string, what: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT')
    return new ComposeFileNotFoundError(`${what} ${file} not found`, {
      hint: 'check the path and -f/--env-file flags',
    })
  return new ComposeFileNotFoundError(`${what} ${file} cannot be read (${code ?? 'error'})`, {
    hint:
      code === 'ELOOP' ? 'a symbolic link on the path points back at itself' : 'check the file permissions',
  })
}

function tooLarge(file: string, what: string): ComposeInputError {
  return new ComposeInputError(
    file,
    undefined,
    `${what} is larger than ${maxInputBytes / 1024 / 1024} MiB`,
    'a compose file, env file or template is a small text file; check the path',
  )
}

/** Whether a file of this kind may be read: regular files, and anything but a directory the user named. */
function readable(file: string, stats: Stats, options: ReadInputOptions): boolean {
  if (stats.isDirectory()) return false
  return stats.isFile() || options.named === true || file === '/dev/null'
}

/**
 * The text of `file` (`what` names it in errors: "compose file", "env file"), read as `readInputBytes`
 * reads it; bytes that are not UTF-8 become U+FFFD.
 */
export function readInputFile(file: string, what: string, options: ReadInputOptions = {}): string {
  return readInputBytes(file, what, options).toString('utf8')
}

/**
 * The bytes of `file` (`what` names it in errors). A missing or unreadable file is a
 * ComposeFileNotFoundError; a directory, a device or pipe nobody named, or a file over
 * `maxInputBytes` is a ComposeInputError, raised before anything past that limit is read.
 */
export function readInputBytes(file: string, what: string, options: ReadInputOptions = {}): Buffer {
  let stats: Stats
  try {
    stats = statSync(file)
  } catch (error) {
    throw unreadable(file, what, error)
  }
  if (!readable(file, stats, options))
    throw new ComposeInputError(file, undefined, `${what} is ${kindOf(stats)}, not a regular file`)
  if (stats.size > maxInputBytes) throw tooLarge(file, what)
  let descriptor: number
  try {
    descriptor = openSync(file, 'r')
  } catch (error) {
    throw unreadable(file, what, error)
  }
  try {
    // the path may have been swapped since the stat: what counts is what was opened
    if (!readable(file, fstatSync(descriptor), options))
      throw new ComposeInputError(file, undefined, `${what} is not a regular file`)
    return readBounded(descriptor, file, what)
  } finally {
    closeSync(descriptor)
  }
}

/** Reads to the end, refusing past `maxInputBytes` (a pipe or a /proc file has no size up front). */
function readBounded(descriptor: number, file: string, what: string): Buffer {
  const chunks: Buffer[] = []
  let total = 0
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024)
    let count: number
    try {
      count = readSync(descriptor, chunk, 0, chunk.length, null)
    } catch (error) {
      throw unreadable(file, what, error)
    }
    if (count === 0) break
    total += count
    if (total > maxInputBytes) throw tooLarge(file, what)
    chunks.push(chunk.subarray(0, count))
  }
  return Buffer.concat(chunks, total)
}
