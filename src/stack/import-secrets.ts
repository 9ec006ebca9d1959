/**
 * `vault secrets import FILE`: a dotenv file read exactly as compose reads it, its values written to
 * one environment (never over an existing, different value without `force`), each name reported with
 * the services that use it. `move` then rewrites FILE: each imported entry becomes a comment without
 * its value plus a bare `NAME` line (see dotenv-lines.ts), after a mode-600 copy of the old FILE is kept
 * in `.vault/` next to it. VAULT_ settings are never imported: they belong in `.vault/credentials`.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { UsageError } from '../errors.js'
import { writeFileAtomic600 } from '../fs/atomic-file.js'

/** What import needs of the vault client. */
export interface ImportWriter {
  listSecrets(environment: string | undefined): Promise<{ name: string; value: string }[]>
  putSecret(name: string, value: string, environment: string | undefined): Promise<unknown>
}

export type ImportAction = 'created' | 'overwritten' | 'unchanged' | 'kept' | 'skipped'

export interface ImportedName {
  name: string
  action: ImportAction
  /** Why a name was kept or skipped. */
  reason?: string
  services: string[]
}

export interface ImportResult {
  file: string
  environment?: string
  dryRun: boolean
  secrets: ImportedName[]
  /** Names whose lines were moved out of FILE (with `move`). */
  moved: string[]
  /** The mode-600 copy of FILE as it was (with `move`). */
  backup?: string
}

export interface ImportOptions {
  file: string
  environment?: string
  only?: string[]
  force: boolean
  dryRun: boolean
  move: boolean
  /** The process environment compose would interpolate FILE with. */
  processEnv: Record<string, string | undefined>
  /** The services using each name (empty lists when no compose project is found). */
  usersOf: (names: string[]) => Promise<Record<string, string[]>>
}

const secretName = /^[A-Z][A-Z0-9_]*$/

/** Imports FILE into the environment; nothing is written with `dryRun`. */
export async function importSecrets(writer: ImportWriter, options: ImportOptions): Promise<ImportResult> {
  const text = await readFile(options.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${options.file}: ${error.code ?? error.message}`)
  })
  const { readEnvFile } = await import('../compose/env-file.js')
  const read = readEnvFile(text, (name) => options.processEnv[name], { file: options.file })
  const bare = new Set(
    read.entries.filter((entry) => isBareEntry(text, entry.line, entry.key)).map((entry) => entry.key),
  )
  const names = [...new Set(read.entries.map((entry) => entry.key))]
  const unknown = (options.only ?? []).filter((name) => !names.includes(name))
  if (unknown.length > 0)
    throw new UsageError(`not in ${options.file}: ${unknown.join(', ')}`, { hint: 'check --only' })
  const chosen = options.only ? names.filter((name) => options.only!.includes(name)) : names
  const existing = new Map((await writer.listSecrets(options.environment)).map((s) => [s.name, s.value]))
  const users = await options.usersOf(chosen)
  const secrets: ImportedName[] = []
  const writes: [string, string, ImportAction][] = []
  for (const name of chosen) {
    const services = users[name] ?? []
    const value = read.values[name]
    const skip = (reason: string) => secrets.push({ name, action: 'skipped', reason, services })
    if (name.startsWith('VAULT_'))
      skip('a vault setting: it belongs in .vault/credentials (vault doctor --fix)')
    else if (bare.has(name)) skip('no value of its own (a bare name, filled from the environment)')
    else if (!secretName.test(name)) skip('not a secret name (UPPER_SNAKE_CASE)')
    else if (value === undefined) skip('no value')
    else if (existing.get(name) === value) secrets.push({ name, action: 'unchanged', services })
    else if (existing.has(name) && !options.force)
      secrets.push({
        name,
        action: 'kept',
        reason: 'the vault holds another value (--force overwrites)',
        services,
      })
    else {
      const action = existing.has(name) ? 'overwritten' : 'created'
      secrets.push({ name, action, services })
      writes.push([name, value, action])
    }
  }
  const result: ImportResult = {
    file: options.file,
    environment: options.environment,
    dryRun: options.dryRun === true,
    secrets,
    moved: [],
  }
  if (options.dryRun) return result
  for (const [name, value] of writes) await writer.putSecret(name, value, options.environment)
  if (options.move) {
    const movable = secrets.filter((s) => ['created', 'overwritten', 'unchanged'].includes(s.action))
    result.moved = movable.map((s) => s.name)
    if (result.moved.length > 0) result.backup = await moveOut(options, text, result.moved)
  }
  return result
}

function isBareEntry(text: string, line: number, key: string): boolean {
  const raw = text.replace(/\r\n?/g, '\n').split('\n')[line - 1] ?? ''
  return raw.replace(/^\s*export\s+/, '').trim() === key
}

async function moveOut(options: ImportOptions, text: string, moved: string[]): Promise<string> {
  const { mkdir } = await import('node:fs/promises')
  const directory = join(dirname(options.file), '.vault')
  await mkdir(directory, { recursive: true, mode: 0o700 })
  const backup = join(directory, `${basename(options.file)}.before-import.${Date.now()}`)
  await writeFileAtomic600(backup, text)
  const { ensureGitIgnored } = await import('../client/credentials-file.js')
  ensureGitIgnored(dirname(options.file), '.vault/')
  const { moveLinesOut } = await import('./dotenv-lines.js')
  const where = options.environment ? `environment ${options.environment}` : 'the default environment'
  const note = `in the vault (${where}); vault run passes it to compose, the bare name below keeps it in env_file consumers`
  await writeFile(options.file, moveLinesOut(text, moved, note, options.file))
  return backup
}
