/**
 * `vault secrets import FILE`: a dotenv file read exactly as compose reads it, its values written to
 * one environment (never over an existing, different value without `force`), each name reported with
 * the services that use it. `move` then rewrites FILE: each imported entry becomes a comment without
 * its value plus a bare `NAME` line (see dotenv-lines.ts), after a mode-600 copy of the old FILE is kept
 * in `.vault/` next to it. VAULT_ settings are never imported: they belong in `.vault/credentials`.
 * Before anything is written it warns, as compose does, of a `$VAR` that interpolates to empty (`raw`
 * imports values as written), and finds values holding another secret's value (a URL's password or a
 * substring): `templates` stores those as templates of it, so they follow it when it rotates.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { UsageError } from '../errors.js'
import { writeFileAtomic600 } from '../fs/atomic-file.js'
import { looksLikeSecretName } from './stack-specs.js'
import type { SecretWriter } from './init-secrets.js'
import { notASecretValue, templateOf } from './value-kinds.js'
import { isSecretName } from '../text/secret-name.js'

export type ImportAction = 'created' | 'overwritten' | 'unchanged' | 'kept' | 'skipped'

export interface ImportedName {
  name: string
  action: ImportAction
  /** Why a name was kept or skipped. */
  reason?: string
  services: string[]
  /** The secret whose value this one holds: stored as a template of it with `templates`. */
  templateOf?: string
}

export interface ImportResult {
  file: string
  environment?: string
  dryRun: boolean
  /** Values imported as written, without interpolation. */
  raw: boolean
  /** What compose would warn about: a `$VAR` in a value that interpolates to empty. */
  warnings: string[]
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
  /** Import values as written: no `${VAR}` interpolation. */
  raw?: boolean
  /** Store a value that holds another secret's value as a template of it. */
  templates?: boolean
  /** Told each warning as soon as it is found, before anything is written. */
  onWarning?: (line: string) => void
  /** The process environment compose would interpolate FILE with. */
  processEnv: Record<string, string | undefined>
  /** The services using each name (empty lists when no compose project is found). */
  usersOf: (names: string[]) => Promise<Record<string, string[]>>
}

/** Imports FILE into the environment; nothing is written with `dryRun`. */
export async function importSecrets(writer: SecretWriter, options: ImportOptions): Promise<ImportResult> {
  const text = await readFile(options.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${options.file}: ${error.code ?? error.message}`)
  })
  const { readEnvFile } = await import('../compose/env-file.js')
  const warnings: string[] = []
  const onUnset = (variable: string, line: number) => {
    const warning = `${options.file}:${line}: the "${variable}" variable is not set: its value would hold a blank string there (--raw imports the value as written)`
    if (warnings.includes(warning)) return
    warnings.push(warning)
    options.onWarning?.(warning)
  }
  const read = readEnvFile(text, (name) => options.processEnv[name], {
    file: options.file,
    raw: options.raw,
    onUnset: options.raw ? undefined : onUnset,
  })
  const bare = new Set(
    read.entries.filter((entry) => isBareEntry(text, entry.line, entry.key)).map((entry) => entry.key),
  )
  const names = [...new Set(read.entries.map((entry) => entry.key))]
  const unknown = (options.only ?? []).filter((name) => !names.includes(name))
  if (unknown.length > 0)
    throw new UsageError(`not in ${options.file}: ${unknown.join(', ')}`, { hint: 'check --only' })
  const chosen = options.only ? names.filter((name) => options.only!.includes(name)) : names
  const stored = await writer.listSecrets(options.environment)
  const existing = new Map(stored.map((s) => [s.name, s.value]))
  const writable = chosen.filter(
    (name) => !name.startsWith('VAULT_') && !bare.has(name) && isSecretName(name),
  )
  const after = Object.fromEntries(
    writable.map((name) => [
      name,
      existing.has(name) && !options.force ? existing.get(name)! : read.values[name],
    ]),
  )
  const holders = heldValues(writable, read.values, after, stored)
  const users = await options.usersOf(chosen)
  const secrets: ImportedName[] = []
  const writes: [string, string, ImportAction, boolean][] = []
  for (const name of chosen) {
    const services = users[name] ?? []
    const holder = holders.get(name)
    const asTemplate = holder !== undefined && options.templates === true
    const value = asTemplate ? holder.template : read.values[name]
    const about = holder ? { templateOf: holder.of } : {}
    const skip = (reason: string) => secrets.push({ name, action: 'skipped', reason, services })
    if (name.startsWith('VAULT_'))
      skip('a vault setting: it belongs in .vault/credentials (vault doctor --fix)')
    else if (bare.has(name)) skip('no value of its own (a bare name, filled from the environment)')
    else if (!isSecretName(name)) skip('not a secret name (UPPER_SNAKE_CASE)')
    else if (value === undefined) skip('no value')
    else if (existing.get(name) === value) secrets.push({ name, action: 'unchanged', services, ...about })
    else if (existing.has(name) && !options.force)
      secrets.push({
        name,
        action: 'kept',
        reason: 'the vault holds another value (--force overwrites)',
        services,
        ...about,
      })
    else {
      const action = existing.has(name) ? 'overwritten' : 'created'
      const reason = holder
        ? asTemplate
          ? `as a template of ${holder.of}`
          : `holds the value of ${holder.of}: --templates stores it as a template of it`
        : settingNote(name, value, options.file)
      secrets.push({ name, action, services, ...(reason ? { reason } : {}), ...about })
      writes.push([name, value, action, asTemplate])
    }
  }
  const result: ImportResult = {
    file: options.file,
    environment: options.environment,
    dryRun: options.dryRun === true,
    raw: options.raw === true,
    warnings,
    secrets,
    moved: [],
  }
  if (options.dryRun) return result
  writes.sort((a, b) => Number(a[3]) - Number(b[3]))
  for (const [name, value, , template] of writes)
    await writer.putSecret(name, value, options.environment, template ? { template: true } : {})
  if (options.move) {
    const movable = secrets.filter((s) => ['created', 'overwritten', 'unchanged'].includes(s.action))
    result.moved = movable.map((s) => s.name)
    if (result.moved.length > 0) result.backup = await moveOut(options, text, result.moved)
  }
  return result
}

/** Values shorter than this are not looked for inside others (a `1` is in too many values). */
const minimumHeldLength = 8

/**
 * For each chosen name whose value holds another secret's value (a URL's password, or a substring),
 * that secret and the template. The other secret is a secret-named value of FILE or of the vault, at
 * least 8 characters, not itself a template; of two equal values the `*_PASSWORD` (then the first by
 * name) is the one held.
 */
function heldValues(
  chosen: string[],
  values: Record<string, string | undefined>,
  after: Record<string, string | undefined>,
  stored: { name: string; value: string; template?: boolean }[],
): Map<string, { of: string; template: string }> {
  const sources = new Map<string, string>()
  for (const secret of stored) if (!secret.template) sources.set(secret.name, secret.value)
  for (const name of chosen) if (after[name] !== undefined) sources.set(name, after[name])
  const rank = (name: string) => (/PASSWORD$/.test(name) ? 0 : 1)
  const candidates = [...sources]
    .filter(([name, value]) => looksLikeSecretName(name) && value.length >= minimumHeldLength)
    .sort(([a, av], [b, bv]) => bv.length - av.length || rank(a) - rank(b) || (a < b ? -1 : 1))
  const found = new Map<string, { of: string; template: string }>()
  for (const name of chosen) {
    const value = values[name]
    if (value === undefined) continue
    const own = candidates.findIndex(([candidate]) => candidate === name)
    for (const [index, [other, otherValue]] of candidates.entries()) {
      if (other === name || (otherValue === value && own !== -1 && own < index)) continue
      const template = templateOf(value, otherValue, other)
      if (template === undefined) continue
      found.set(name, { of: other, template })
      break
    }
  }
  return found
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

/** Kinds of value that make a name without a secret's suffix a plain setting. */
const settingKinds = new Set(['a boolean', 'a number', 'a path', 'a URL without credentials'])

/**
 * A note for a value that reads as a plain setting (authentik's AUTHENTIK_ERROR_REPORTING__ENABLED=true):
 * importing it is allowed, but it needs no vault; --only picks the secrets.
 */
function settingNote(name: string, value: string, file: string): string | undefined {
  if (looksLikeSecretName(name)) return undefined
  const kind = notASecretValue(value)
  if (kind === undefined || !settingKinds.has(kind)) return undefined
  return `a setting (${kind}), not a secret: it can stay in ${basename(file)} (--only names the secrets)`
}
