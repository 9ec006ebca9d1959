/**
 * Writing an export to a file: atomically (a temporary file in the same directory, then rename) and
 * with mode 600 from the first byte, so no reader ever sees a partial or world-readable file. The
 * temporary name is exclusive (`wx`), so a clash fails instead of sharing a file.
 */
import { chmod, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Writes `text` to `path` atomically with mode 600 (an existing file is replaced). */
export async function writeFileAtomic600(path: string, text: string): Promise<void> {
  const unique = `${process.pid}.${process.hrtime.bigint().toString(36)}`
  const temporary = join(dirname(path), `.${basename(path)}.${unique}.tmp`)
  const handle = await open(temporary, 'wx', 0o600)
  try {
    await handle.chmod(0o600)
    await handle.writeFile(text, 'utf8')
    await handle.sync()
  } catch (error) {
    await handle.close()
    await rm(temporary, { force: true })
    throw error
  }
  await handle.close()
  try {
    await rename(temporary, path)
    await chmod(path, 0o600)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}
