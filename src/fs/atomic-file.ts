/**
 * Files that appear whole or not at all: content goes to a temporary file in the target's directory,
 * created exclusively with mode 600, is fsynced, then renamed over the target and the directory fsynced.
 * A failure removes the temporary and leaves the target as it was. Exports, the token cache and backup
 * archives are written this way.
 */
import { randomBytes } from 'node:crypto'
import { chmod, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

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
 * Replaces `path` atomically: `produce` writes the temporary file it is given (which already exists,
 * empty, with mode 600), then the result is made durable and renamed over `path` with mode 600.
 */
export async function replaceFileAtomically(
  path: string,
  produce: (temporary: string) => Promise<void>,
): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`)
  await (await open(temporary, 'wx', 0o600)).close()
  try {
    await produce(temporary)
    await chmod(temporary, 0o600)
    await syncFile(temporary)
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  await syncDirectory(dirname(path))
}

/** Writes `text` to `path` atomically with mode 600 (an existing file is replaced). */
export function writeFileAtomic600(path: string, text: string): Promise<void> {
  return replaceFileAtomically(path, async (temporary) => {
    const handle = await open(temporary, 'w')
    try {
      await handle.writeFile(text, 'utf8')
    } finally {
      await handle.close()
    }
  })
}
