/**
 * The CLI's own private directories (the token cache, the `--fallback` copies and their key under the
 * user's XDG state and config homes; compose v1's secret files on tmpfs): made mode 700, and when they
 * already exist, trusted only if they are a real directory of this user that no one else can write
 * into (then tightened to 700). Another user who owned one, or could write into one, could swap the key
 * file, plant a copy sealed under their own key for `--fallback` to use, replace the token cache, or
 * read the secret files compose mounts (a predictable path in /dev/shm).
 */
import { chmod, lstat, mkdir } from 'node:fs/promises'
import { IoError } from '../errors.js'
import { shellWord } from '../text/shell-word.js'

/** Makes `directory` (and missing parents, mode 700), or takes it if private; `what` names its content. */
export async function ensurePrivateDirectory(directory: string, what: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 })
  await refuseShared(directory, what)
}

/** Checks `directory` as `ensurePrivateDirectory` does before its content is read; a missing one passes. */
export async function checkPrivateDirectory(directory: string, what: string): Promise<void> {
  const exists = await lstat(directory).then(
    () => true,
    () => false,
  )
  if (exists) await refuseShared(directory, what)
}

async function refuseShared(directory: string, what: string): Promise<void> {
  const found = await lstat(directory)
  const uid = process.getuid?.()
  const problem = !found.isDirectory()
    ? 'is a symlink or not a directory'
    : uid !== undefined && found.uid !== uid
      ? `belongs to uid ${found.uid}, not to this user`
      : (found.mode & 0o022) !== 0
        ? `can be written by other users (mode ${(found.mode & 0o777).toString(8)})`
        : undefined
  if (problem) {
    throw new IoError(`refusing to use ${what} in ${directory}: it ${problem}`, {
      hint: `its content may not be yours: remove it (rm -r ${shellWord(directory)}) and run again`,
    })
  }
  if ((found.mode & 0o077) !== 0) await chmod(directory, 0o700)
}
