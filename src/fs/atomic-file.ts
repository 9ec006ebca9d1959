/**
 * Files that appear whole or not at all: content goes to a temporary file in the target's directory,
 * created exclusively with mode 600, is fsynced, then renamed over the target and the directory fsynced.
 * A failure removes the temporary and leaves the target as it was. Exports, the token cache and backup
 * archives are written this way.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { startUpRandomBytes } from '../crypto/start-up-random.js'

/** A fresh name beside `path` for its temporary (created with 'wx', so never an existing file or link). */
function temporaryBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${startUpRandomBytes(6).toString('hex')}.partial`)
}

/** fsyncs a file's content to disk. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** fsyncs a directory so a rename inside it is durable; a no-op where directories cannot be opened. */
export async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    return
  }
}

/**
 * Replaces `path` atomically: `produce` writes the temporary file (created empty and exclusively, mode
 * 600) through `handle`, the descriptor of that create; then the result gets `mode` (600 unless given),
 * is made durable and renamed over `path`. Nothing goes through the temporary's name, so a name swapped
 * for a symlink in between (in a directory another user can write) is never followed.
 */
export async function replaceFileAtomically(
  path: string,
  produce: (handle: FileHandle) => Promise<void>,
  mode = 0o600,
): Promise<void> {
  const temporary = temporaryBeside(path)
  const handle = await open(temporary, 'wx', 0o600)
  try {
    try {
      await produce(handle)
      await handle.chmod(mode)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  await syncDirectory(dirname(path))
}

/** Writes `text` to `path` atomically with mode 600 (an existing file is replaced). */
export function writeFileAtomic600(path: string, text: string): Promise<void> {
  return replaceFileAtomically(path, (handle) => handle.writeFile(text, 'utf8'))
}

/**
 * `writeFileAtomic600` for synchronous callers: a symlink or a looser file already at `path` is
 * replaced by the rename, never written through, so the text is never readable by others, and never
 * lands where a planted link points.
 */
export function writeFileAtomic600Sync(path: string, text: string): void {
  const temporary = temporaryBeside(path)
  const descriptor = openSync(temporary, 'wx', 0o600)
  try {
    try {
      writeSync(descriptor, text, null, 'utf8')
      fsyncSync(descriptor)
    } finally {
      closeSync(descriptor)
    }
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}
