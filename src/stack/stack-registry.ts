/**
 * The stacks this machine has used with the vault: `$XDG_STATE_HOME/vault/stacks.json` (mode 600) lists
 * each stack directory with the vault, project and environment it used (never a value). `vault rotate`
 * reads it to say which other stacks use the secret it rotated, since it recreates only the stack it
 * runs in. Recording is best effort: a read-only home never fails a command.
 */
import { mkdir, readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { tokenFilePath } from '../client/token-store.js'
import { writeFileAtomic600 } from '../fs/atomic-file.js'

export interface StackEntry {
  stackDir: string
  domain: string
  projectId: string
  environment: string
  lastUsed: string
}

type Scope = Pick<StackEntry, 'domain' | 'projectId' | 'environment'>

/** `stacks.json` next to the token cache. */
export function stackRegistryPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(tokenFilePath(env)), 'stacks.json')
}

/** The well-formed entries of the file (a damaged one, or a damaged entry, is no entry). */
async function readEntries(path: string): Promise<StackEntry[]> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { stacks?: unknown } | null
    return Array.isArray(parsed?.stacks) ? parsed.stacks.filter(isEntry) : []
  } catch {
    return []
  }
}

const entryFields = ['stackDir', 'domain', 'projectId', 'environment', 'lastUsed'] as const

function isEntry(value: unknown): value is StackEntry {
  if (typeof value !== 'object' || value === null) return false
  return entryFields.every(
    (name) => Object.hasOwn(value, name) && typeof (value as Record<string, unknown>)[name] === 'string',
  )
}

const sameScope = (a: Scope, b: Scope) =>
  a.domain === b.domain && a.projectId === b.projectId && a.environment === b.environment

/** Records that `stackDir` used `scope` (best effort); no write when it is already the newest entry. */
export async function recordStack(
  stackDir: string,
  scope: Scope,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  try {
    const path = stackRegistryPath(env)
    const directory = resolve(stackDir)
    const recorded = await readEntries(path)
    const last = recorded.at(-1)
    if (last && last.stackDir === directory && sameScope(last, scope)) return
    const entries = recorded.filter((entry) => !(entry.stackDir === directory && sameScope(entry, scope)))
    entries.push({ stackDir: directory, ...scope, lastUsed: new Date().toISOString() })
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    await writeFileAtomic600(path, `${JSON.stringify({ stacks: entries.slice(-200) }, null, 2)}\n`)
  } catch {
    return
  }
}

/** The other stack directories recorded for `scope`. */
export async function otherStacks(
  stackDir: string,
  scope: Scope,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const directory = resolve(stackDir)
  return (await readEntries(stackRegistryPath(env)))
    .filter((entry) => entry.stackDir !== directory && sameScope(entry, scope))
    .map((entry) => entry.stackDir)
}
