/**
 * The offline copies of `--fallback`: one file per (domain, project, environment) under
 * `$XDG_STATE_HOME/vault/fallback/`, mode 600 in a mode-700 directory, written atomically. The
 * secrets are sealed with AES-256-GCM (node:crypto); the header (whose copy it is and when it was
 * saved) is authenticated as additional data, so a copy moved to another name or with its age
 * changed fails like a tampered one. Nothing in the file is a value in clear. What a copy holds is
 * checked like the vault's answer it was made from (secret names follow the server's rule).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { readdir, readFile, rm } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { IntegrityError } from '../errors.js'
import { writeFileAtomic600 } from '../fs/atomic-file.js'
import { checkPrivateDirectory, ensurePrivateDirectory } from '../fs/private-directory.js'
import {
  arrayOf,
  count,
  decodeWith,
  field,
  object,
  optional,
  secretName,
  string,
  uniqueNames,
  type Decoder,
} from '../client/vault-answer.js'

const format = 'vault-fallback/1'

/** Whose secrets a copy holds. */
export interface CopyIdentity {
  domain: string
  project: string
  /** The environment slug as given (empty when the server chose the only one). */
  environment: string
}

/** One secret as kept in a copy. */
export interface CopiedSecret {
  name: string
  value: string
  version?: number
}

export interface OfflineCopy {
  identity: CopyIdentity
  /** When the copy was saved (milliseconds since the epoch). */
  savedAt: number
  secrets: CopiedSecret[]
}

interface CopyFile extends CopyIdentity {
  format: string
  savedAt: string
  iv: string
  tag: string
  ciphertext: string
}

/** The directory of the copies: `$XDG_STATE_HOME/vault/fallback`. */
export function fallbackDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const stateHome = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state')
  return join(stateHome, 'vault', 'fallback')
}

/** The file of one copy (a hash of its identity, so names and slugs never shape a path). */
export function copyFilePath(identity: CopyIdentity, env: NodeJS.ProcessEnv = process.env): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([identity.domain, identity.project, identity.environment]))
    .digest('hex')
  return join(fallbackDirectory(env), `${digest.slice(0, 32)}.json`)
}

function additionalData(identity: CopyIdentity, savedAt: string): Buffer {
  return Buffer.from(
    JSON.stringify([format, identity.domain, identity.project, identity.environment, savedAt]),
  )
}

/** Seals and writes a copy, replacing the previous one. */
export async function writeCopy(
  copy: OfflineCopy,
  key: Buffer,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const savedAt = new Date(copy.savedAt).toISOString()
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(additionalData(copy.identity, savedAt))
  const plaintext = Buffer.from(JSON.stringify({ secrets: copy.secrets }))
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
  plaintext.fill(0)
  const file: CopyFile = {
    format,
    ...copy.identity,
    savedAt,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  }
  await ensurePrivateDirectory(dirname(fallbackDirectory(env)), 'the offline copies')
  await ensurePrivateDirectory(fallbackDirectory(env), 'the offline copies')
  await writeFileAtomic600(copyFilePath(copy.identity, env), `${JSON.stringify(file)}\n`)
}

/** Reads and opens a copy: undefined when there is none; IntegrityError when it fails any check. */
export async function readCopy(
  identity: CopyIdentity,
  key: Buffer | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OfflineCopy | undefined> {
  const path = copyFilePath(identity, env)
  await checkPrivateDirectory(dirname(fallbackDirectory(env)), 'the offline copies')
  await checkPrivateDirectory(fallbackDirectory(env), 'the offline copies')
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const refuse = (what: string) =>
    new IntegrityError(`the offline copy ${path} ${what}; it was not used`, {
      hint: 'delete it (vault logout --delete-fallback) and let the next successful fetch write a new one',
    })
  const file = parseCopyFile(text)
  if (!file) throw refuse('is corrupted')
  if (
    file.domain !== identity.domain ||
    file.project !== identity.project ||
    file.environment !== identity.environment
  ) {
    throw refuse('belongs to another vault, project or environment')
  }
  if (!key) throw refuse('cannot be opened: its key is missing from the keychain and the key file')
  let opened: unknown
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(file.iv, 'base64'))
    decipher.setAAD(additionalData(identity, file.savedAt))
    decipher.setAuthTag(Buffer.from(file.tag, 'base64'))
    const plaintext = Buffer.concat([
      decipher.update(Buffer.from(file.ciphertext, 'base64')),
      decipher.final(),
    ])
    opened = JSON.parse(plaintext.toString('utf8')) as unknown
    plaintext.fill(0)
  } catch {
    throw refuse('failed its integrity check (a wrong key, or the file was changed)')
  }
  // a copy sealed by an older vault CLI holds what the server sent, unchecked
  const secrets = decodeWith(opened, '', copiedSecrets, (problem) => refuse(`is not usable: ${problem}`))
  return { identity, savedAt: Date.parse(file.savedAt), secrets }
}

const copiedSecret: Decoder<CopiedSecret> = (value, where) => {
  const record = object(value, where)
  const version = field(record, 'version', optional(count), where)
  return {
    name: field(record, 'name', secretName, where),
    value: field(record, 'value', string, where),
    ...(version === undefined ? {} : { version }),
  }
}

const copiedSecrets: Decoder<CopiedSecret[]> = (value, where) =>
  uniqueNames(field(object(value, where), 'secrets', arrayOf(copiedSecret), where), 'secrets')

function parseCopyFile(text: string): CopyFile | undefined {
  try {
    const file = JSON.parse(text) as Partial<CopyFile>
    const fields = ['domain', 'project', 'environment', 'savedAt', 'iv', 'tag', 'ciphertext'] as const
    if (file.format !== format || fields.some((field) => typeof file[field] !== 'string')) return undefined
    if (Number.isNaN(Date.parse(file.savedAt!))) return undefined
    if (Buffer.from(file.iv!, 'base64').length !== 12 || Buffer.from(file.tag!, 'base64').length !== 16) {
      return undefined
    }
    return file as CopyFile
  } catch {
    return undefined
  }
}

/** The identities of the copies kept for `domain` and `project` (unreadable files are skipped). */
export async function listCopies(
  domain: string,
  project: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ identity: CopyIdentity; path: string }[]> {
  const directory = fallbackDirectory(env)
  let names: string[]
  try {
    names = await readdir(directory)
  } catch {
    return []
  }
  const found: { identity: CopyIdentity; path: string }[] = []
  for (const name of names.filter((entry) => entry.endsWith('.json'))) {
    const path = join(directory, name)
    const file = parseCopyFile(await readFile(path, 'utf8').catch(() => ''))
    if (file && file.domain === domain && file.project === project) {
      found.push({ identity: { domain, project, environment: file.environment }, path })
    }
  }
  return found
}

/** Deletes the given copies; true when no copy of any vault is left. */
export async function deleteCopies(paths: string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  for (const path of paths) await rm(path, { force: true })
  const left = await readdir(fallbackDirectory(env)).catch(() => [] as string[])
  return left.filter((entry) => entry.endsWith('.json')).length === 0
}
