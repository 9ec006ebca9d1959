/**
 * `vault doctor`'s checks of the stack's files: the credentials file (`.vault/credentials`) present,
 * mode 600 and ignored by git, and no VAULT_ setting left in `.env`, which compose reads (an
 * `env_file: .env` service would receive the client secret). `--fix` moves such lines first.
 */
import { readFile, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { credentialNames, credentialsFilePath, migrateLegacyCredentials } from '../client/credentials-file.js'
import { shellWord } from '../text/shell-word.js'
import type { DoctorCheck } from './checks.js'

type Check = Omit<DoctorCheck, 'id' | 'title'>
type Add = (id: string, title: string, check: Check) => void

/**
 * Adds the stack-file checks; with `fix`, migrates a legacy `.env` first and says so. A missing file is
 * no failure when `fromEnvironment` (the client secret came from the process environment).
 */
export async function checkStackFiles(
  stackDir: string,
  fix: boolean,
  fromEnvironment: boolean,
  add: Add,
): Promise<void> {
  const dir = resolve(stackDir)
  const envFile = join(dir, '.env')
  const credentialsFile = credentialsFilePath(dir)
  if (fix) {
    const migration = await migrateLegacyCredentials(dir)
    if (migration.moved.length > 0)
      add('fix-credentials', 'credentials moved out of .env', {
        status: 'pass',
        detail: `${migration.moved.join(', ')} -> ${migration.credentialsFile}; the old .env is kept in ${migration.backup}`,
      })
  }
  const legacy = await legacyNames(envFile)
  add(
    'env-credentials',
    'no vault credential in .env',
    legacy.length === 0
      ? { status: 'pass', detail: `${envFile} holds no VAULT_ setting` }
      : {
          status: 'fail',
          detail: `${envFile} holds ${legacy.join(', ')}: compose reads it, so an env_file: .env service receives them`,
          hint: 'vault doctor --fix moves them to .vault/credentials (keeping a mode-600 copy of .env)',
        },
  )
  const mode = await fileMode(credentialsFile)
  add(
    'credentials-file',
    'credentials file present',
    mode !== undefined
      ? { status: 'pass', detail: credentialsFile }
      : legacy.length > 0
        ? { status: 'skip', detail: 'the credentials are still in .env (see above)' }
        : fromEnvironment
          ? { status: 'skip', detail: 'the credentials come from the environment' }
          : {
              status: 'fail',
              detail: `${credentialsFile} not found`,
              hint: 'vault server init --write-env DIR writes it; or set VAULT_DOMAIN, VAULT_PROJECT_ID, VAULT_CLIENT_ID and VAULT_CLIENT_SECRET there (mode 600)',
            },
  )
  const file = mode !== undefined ? credentialsFile : legacy.length > 0 ? envFile : undefined
  const fileMode600 = file === credentialsFile ? mode : await fileMode(envFile)
  add(
    'credentials-mode',
    'credentials file mode 600',
    file === undefined || fileMode600 === undefined
      ? { status: 'skip', detail: 'no credentials file' }
      : (fileMode600 & 0o077) === 0
        ? { status: 'pass', detail: `mode ${fileMode600.toString(8)}` }
        : {
            status: 'fail',
            detail: `${file}: mode ${fileMode600.toString(8)}, readable by group or others`,
            hint: `chmod 600 ${shellWord(file)}`,
          },
  )
  add(
    'credentials-git',
    'credentials file ignored by git',
    file === undefined ? { status: 'skip', detail: 'no credentials file' } : await gitCheck(file),
  )
}

async function legacyNames(envFile: string): Promise<string[]> {
  let text: string
  try {
    text = await readFile(envFile, 'utf8')
  } catch {
    return []
  }
  const { parseEnvFile } = await import('../compose/env-file.js')
  try {
    const values = parseEnvFile(text, () => undefined, { file: envFile })
    return credentialNames.filter((name) => values[name] !== undefined)
  } catch {
    return []
  }
}

async function fileMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o777
  } catch {
    return undefined
  }
}

async function gitCheck(path: string): Promise<Check> {
  const { gitIgnoreStatus } = await import('../process/git-ignore.js')
  const status = await gitIgnoreStatus(path)
  if (status === 'ignored') return { status: 'pass', detail: 'ignored' }
  if (status === 'not-ignored')
    return {
      status: 'fail',
      detail: 'not ignored: a commit would include the client secret',
      hint: `add ${path.endsWith('.env') ? '.env' : '.vault/'} to .gitignore`,
    }
  return {
    status: 'pass',
    detail: status === 'git-missing' ? 'git is not installed' : 'not in a git repository',
  }
}
