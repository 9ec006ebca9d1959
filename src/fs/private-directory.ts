/**
 * The CLI's own private directories (the token cache, the `--fallback` copies and their key under the
 * user's XDG state and config homes; compose v1's secret files on tmpfs; `vault server --dev`'s data
 * directory) and the private files in them (the dev keys and database): made mode 700, and when they
 * already exist, trusted only if they are a real directory (or regular file) of this user that no one
 * else can write into (then tightened to 700, or 600 for a file). Another user who owned one, or could
 * write into one, could swap the key file, plant a copy sealed under their own key for `--fallback` to
 * use, replace the token cache, read the secret files compose mounts (a predictable path in /dev/shm),
 * or hand `vault server --dev` keys and a database of their own. A private file that others could read
 * is refused as well when its content is a key (`secret`): its keys are no longer this user's alone.
 */
import { chmodSync, lstatSync, mkdirSync, type Stats } from 'node:fs'
import { chmod, lstat, mkdir } from 'node:fs/promises'
import { IoError } from '../errors.js'
import { shellWord } from '../text/shell-word.js'

type Kind = 'directory' | 'file' | 'secret file'

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

/** `ensurePrivateDirectory` for a caller that cannot wait (configuration resolved synchronously). */
export function ensurePrivateDirectorySync(directory: string, what: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  const found = lstatSync(directory)
  refuse(directory, what, problemOf(found, 'directory'))
  if ((found.mode & 0o077) !== 0) chmodSync(directory, 0o700)
}

/**
 * Checks a file of a private directory before it is read: a missing one passes; one that is a symlink,
 * not a regular file, another user's or writable by others is refused; a `secret` one (keys) that
 * others could read is refused too, and any other one is tightened to 600.
 */
export function checkPrivateFileSync(path: string, what: string, options: { secret?: boolean } = {}): void {
  let found: Stats
  try {
    found = lstatSync(path)
  } catch {
    return
  }
  refuse(path, what, problemOf(found, options.secret ? 'secret file' : 'file'))
  if ((found.mode & 0o077) !== 0) chmodSync(path, 0o600)
}

async function refuseShared(directory: string, what: string): Promise<void> {
  const found = await lstat(directory)
  refuse(directory, what, problemOf(found, 'directory'))
  if ((found.mode & 0o077) !== 0) await chmod(directory, 0o700)
}

/** What makes `found` not this user's own, or undefined when it is. */
function problemOf(found: Stats, kind: Kind): string | undefined {
  const uid = process.getuid?.()
  const mode = (found.mode & 0o777).toString(8)
  if (kind === 'directory' ? !found.isDirectory() : !found.isFile())
    return kind === 'directory' ? 'is a symlink or not a directory' : 'is a symlink or not a regular file'
  if (uid !== undefined && found.uid !== uid) return `belongs to uid ${found.uid}, not to this user`
  if ((found.mode & 0o022) !== 0) return `can be written by other users (mode ${mode})`
  if (kind === 'secret file' && (found.mode & 0o044) !== 0) return `can be read by other users (mode ${mode})`
  return undefined
}

function refuse(path: string, what: string, problem: string | undefined): void {
  if (!problem) return
  throw new IoError(`refusing to use ${what} in ${path}: it ${problem}`, {
    hint: `its content may not be yours: remove it (rm -r ${shellWord(path)}) and run again`,
  })
}
