/**
 * A server setting read from a file (`VAULT_ENCRYPTION_KEY_FILE`, ...: systemd's LoadCredential, a
 * compose secret, a root-only file): a regular file no one but its owner may write to, at most 64 KiB,
 * its trailing line breaks dropped. Errors name the variable and the path, never the content.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { NotConfiguredError } from '../errors.js'
import { shellWord } from '../text/shell-word.js'

const maxBytes = 64 * 1024

/** The text of the file `path` named by `variable`; throws NotConfiguredError when it may not be used. */
export function readSettingFile(variable: string, path: string): string {
  let fd: number
  try {
    // O_NONBLOCK: a FIFO planted at the path is refused below instead of blocking the start
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw new NotConfiguredError(
      `${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code})`,
      {
        hint: `point ${variable} at a root-only file holding the value`,
      },
    )
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new NotConfiguredError(`${variable}: ${path} is not a regular file`)
    if ((stat.mode & 0o022) !== 0) {
      throw new NotConfiguredError(`${variable}: ${path} is writable by its group or others; refusing it`, {
        hint: `chmod 600 ${shellWord(path)} (or 400)`,
      })
    }
    if (stat.size > maxBytes) throw new NotConfiguredError(`${variable}: ${path} is larger than 64 KiB`)
    const buffer = Buffer.alloc(maxBytes + 1)
    let length = 0
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null)
      if (read === 0) break
      length += read
      if (length > maxBytes) throw new NotConfiguredError(`${variable}: ${path} is larger than 64 KiB`)
    }
    const text = buffer
      .subarray(0, length)
      .toString('utf8')
      .replace(/[\r\n]+$/, '')
    if (text === '') throw new NotConfiguredError(`${variable}: ${path} is empty`)
    return text
  } finally {
    closeSync(fd)
  }
}
