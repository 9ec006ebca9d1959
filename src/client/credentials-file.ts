/**
 * The stack's vault credentials (VAULT_DOMAIN, VAULT_PROJECT_ID, VAULT_CLIENT_ID, VAULT_CLIENT_SECRET)
 * live in `.vault/credentials`, a dotenv file compose never reads (it is neither `.env` nor any service's
 * `env_file`), so no container ever receives them. The directory is mode 700, the file mode 600, and
 * `.gitignore` lists `.vault/`. Stacks set up before this layout keep the four lines in `.env`; they still
 * work (with a warning), and `migrateLegacyCredentials` (`vault doctor --fix`) moves them.
 */
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { IoError } from '../errors.js'
import { encodeDotenvLine } from '../text/dotenv.js'
import { writeFileAtomic600Sync } from '../fs/atomic-file.js'
import { shellWord } from '../text/shell-word.js'

/** The settings a stack's credentials file holds, in the order it writes them. */
export const credentialNames = [
  'VAULT_DOMAIN',
  'VAULT_PROJECT_ID',
  'VAULT_CLIENT_ID',
  'VAULT_CLIENT_SECRET',
] as const

/** Names that are credentials proper: a container that receives one of them can act as the stack. */
export const credentialSecretNames = [
  'VAULT_CLIENT_SECRET',
  'VAULT_CLIENT_ID',
  'VAULT_TOKEN',
  'VAULT_ACCESS_TOKEN',
] as const

/** `.vault/credentials` under the stack directory. */
export function credentialsFilePath(stackDir: string): string {
  return join(stackDir, '.vault', 'credentials')
}

/** A plain line for plain values, else `vault export`'s quoting (read back exactly). */
function dotenvLine(name: string, value: string): string {
  return /^[A-Za-z0-9_./:@+=-]*$/.test(value) ? `${name}=${value}` : encodeDotenvLine(name, value).text
}

/**
 * Writes (or updates) the credentials file of `stackDir`: the given names replace their lines, other
 * lines are kept; mode 600 inside a mode-700 `.vault/`, which `.gitignore` lists. Returns its path.
 */
export function writeCredentialsFile(stackDir: string, values: Partial<Record<string, string>>): string {
  const directory = join(stackDir, '.vault')
  privateStackDirectory(directory)
  const file = credentialsFilePath(stackDir)
  const names = Object.keys(values).filter((name) => values[name] !== undefined)
  const kept = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !names.some((name) => line.startsWith(`${name}=`)))
    : []
  const lines = [...kept, ...names.map((name) => dotenvLine(name, values[name]!))]
  writeFileAtomic600Sync(file, `${lines.join('\n')}\n`)
  ensureGitIgnored(stackDir, '.vault/')
  return file
}

/**
 * Makes DIR/.vault (mode 700) or takes the existing one; refuses a `.vault` that is a symlink or not a
 * directory (a project directory from elsewhere may carry one pointing out of the stack), which the
 * mkdir and chmod would have followed.
 */
function privateStackDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  if (!lstatSync(directory).isDirectory()) {
    throw new IoError(
      `refusing to write the vault credentials into ${directory}: it is a symlink or not a directory`,
      {
        hint: `remove it (rm ${shellWord(directory)}) and run again`,
      },
    )
  }
  chmodSync(directory, 0o700)
}

/** Appends `entry` to DIR/.gitignore unless a line already lists it. */
export function ensureGitIgnored(stackDir: string, entry: string): void {
  const gitignore = join(stackDir, '.gitignore')
  const text = existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : ''
  const bare = entry.replace(/^\//, '').replace(/\/$/, '')
  const listed = text.split('\n').some((line) => {
    const trimmed = line.trim().replace(/^\//, '').replace(/\/$/, '')
    return trimmed === bare
  })
  if (!listed) appendUnlessLink(gitignore, `${text === '' || text.endsWith('\n') ? '' : '\n'}${entry}\n`)
}

/**
 * Appends to a file that is not a symlink (O_NOFOLLOW): a project's `.gitignore` linked to a file
 * elsewhere (`~/.bashrc`) is left alone, and the missing entry shows up as the "not ignored by git"
 * warning instead.
 */
function appendUnlessLink(path: string, text: string): void {
  let descriptor: number
  try {
    descriptor = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o644,
    )
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return
    throw error
  }
  try {
    writeSync(descriptor, text)
  } finally {
    closeSync(descriptor)
  }
}

/** The lines of a dotenv text that set one of `names` (`NAME=`, `export NAME=`, `NAME: `). */
export function isSettingLine(line: string, names: readonly string[]): string | undefined {
  const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|:\s)/.exec(line)
  return match && names.includes(match[1]!) ? match[1] : undefined
}

export interface CredentialsMigration {
  /** The credentials file now holding the settings. */
  credentialsFile: string
  /** Names taken out of `.env`. */
  moved: string[]
  /** The mode-600 copy of `.env` as it was, when anything was moved. */
  backup?: string
}

/**
 * Moves the VAULT_ settings of DIR/.env into the credentials file (values already in the credentials
 * file win) and removes their lines from `.env`, after keeping a mode-600 copy of the old `.env` in
 * `.vault/`. The values are read with compose's dotenv parser.
 */
export async function migrateLegacyCredentials(stackDir: string): Promise<CredentialsMigration> {
  const envPath = join(stackDir, '.env')
  const credentialsFile = credentialsFilePath(stackDir)
  if (!existsSync(envPath)) return { credentialsFile, moved: [] }
  const text = readFileSync(envPath, 'utf8')
  const { parseEnvFile } = await import('../compose/env-file.js')
  const values = parseEnvFile(text, () => undefined, { file: envPath })
  const moved = credentialNames.filter((name) => values[name] !== undefined)
  if (moved.length === 0) return { credentialsFile, moved }
  const current = existsSync(credentialsFile)
    ? parseEnvFile(readFileSync(credentialsFile, 'utf8'), () => undefined, { file: credentialsFile })
    : {}
  const merged = Object.fromEntries(moved.map((name) => [name, current[name] ?? values[name]!]))
  writeCredentialsFile(stackDir, merged)
  const backup = join(stackDir, '.vault', `env.before-migration.${Date.now()}`)
  writeFileAtomic600Sync(backup, text)
  const kept = text.split('\n').filter((line) => !isSettingLine(line, credentialNames))
  writeFileSync(envPath, kept.join('\n'))
  return { credentialsFile, moved, backup }
}
