/**
 * Durability helpers: flush a file's data, and a directory's entries (after a rename), to disk.
 */
import { open } from 'node:fs/promises'

/** fsyncs the file at `path`. */
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
