/**
 * Compose secrets with an `environment:` source for compose v1 (`docker-compose`, which lacks that
 * source): `vault run` writes each such secret into a private tmpfs directory (mode 700, under
 * $XDG_RUNTIME_DIR or /dev/shm, never on persistent disk; each file with the mode, uid and gid the
 * long syntax asks for, mode 0444 by default as compose v2: compose-secret-access.ts), rewrites the compose files that
 * declare them with the equivalent `file:` source, and points compose at the rewritten files with the
 * original project directory. The directory stays while the stack runs (`up -d`: the containers
 * bind-mount the files, and a restarted container mounts them again) and is removed after `down` or a
 * foreground `up`, when the stack has stopped. A one-off `run` keeps it: the services it starts as
 * dependencies, and a stack already up, go on mounting the files.
 */
import { createHash } from 'node:crypto'
import { rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { ComposeInputError } from '../compose/errors.js'
import { NotConfiguredError } from '../errors.js'
import { replaceFileAtomically } from '../fs/atomic-file.js'
import { ensurePrivateDirectory } from '../fs/private-directory.js'
import type { Document } from 'yaml'
import { yamlModule } from '../text/yaml-module.js'
import {
  accessOf,
  applyOwner,
  defaultSecretMode,
  variantName,
  type SecretAccess,
} from './compose-secret-access.js'
import { composeValueOptions } from './compose-value-options.js'

export interface ComposeInvocation {
  /** Global options before the subcommand, without -f / --project-directory. */
  globals: string[]
  files: string[]
  projectDirectory?: string
  subcommand: string
  rest: string[]
}

/** Splits a `docker-compose` command line; undefined when the command is not compose v1. */
export function parseComposeV1(command: string, args: string[]): ComposeInvocation | undefined {
  if (basename(command) !== 'docker-compose') return undefined
  const invocation: ComposeInvocation = { globals: [], files: [], subcommand: '', rest: [] }
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined]
    if (!arg.startsWith('-')) {
      invocation.subcommand = arg
      invocation.rest = args.slice(index + 1)
      break
    }
    if (!composeValueOptions.has(flag)) {
      invocation.globals.push(arg)
      continue
    }
    const value = inline ?? args[++index] ?? ''
    if (flag === '-f' || flag === '--file') invocation.files.push(value)
    else if (flag === '--project-directory') invocation.projectDirectory = value
    else invocation.globals.push(flag, value)
  }
  return invocation
}

export interface SecretFilesPlan {
  /** The command line to run instead. */
  args: string[]
  directory: string
  /** Whether the directory goes when the command ends (`down`, or a foreground `up`). */
  removeAfter: boolean
}

/** Where private secret files may live: $XDG_RUNTIME_DIR, else /dev/shm (both tmpfs). */
async function tmpfsBase(env: NodeJS.ProcessEnv): Promise<string> {
  for (const candidate of [env.XDG_RUNTIME_DIR, '/dev/shm']) {
    if (candidate && (await stat(candidate).catch(() => undefined))?.isDirectory()) return candidate
  }
  throw new NotConfiguredError(
    'compose secrets need a tmpfs directory: neither $XDG_RUNTIME_DIR nor /dev/shm exists',
    {
      hint: 'set XDG_RUNTIME_DIR to a tmpfs directory, or use the `file:` source yourself',
    },
  )
}

/**
 * Writes a file of the private directory whole (a new file renamed over the old one), so a container
 * that mounts it, or a concurrent run of the same project, never reads it half written.
 */
function writePrivate(path: string, text: string, mode: number): Promise<void> {
  return replaceFileAtomically(path, (handle) => handle.writeFile(text, 'utf8'), mode)
}

/**
 * Prepares the secret files for a compose v1 command, or returns undefined when its compose files
 * declare no secret with an `environment:` source. `values` is the child's environment.
 */
export async function prepareSecretFiles(
  invocation: ComposeInvocation,
  cwd: string,
  values: Record<string, string>,
): Promise<SecretFilesPlan | undefined> {
  const { discoverComposeFiles } = await import('../compose/load.js')
  const files = discoverComposeFiles(cwd, invocation.files, values.COMPOSE_FILE)
  const documents = await Promise.all(files.map(readComposeDocument))
  const yaml = yamlModule()
  const sources = new Map<string, string>()
  for (const [index, document] of documents.entries()) {
    const secrets = document.get('secrets')
    if (!yaml.isMap(secrets)) continue
    for (const item of secrets.items) {
      const definition = item.value
      const variable = yaml.isMap(definition) ? definition.get('environment') : undefined
      if (typeof variable !== 'string') continue
      const name = String(yaml.isScalar(item.key) ? item.key.value : item.key)
      refuseUnsafeSecretName(name, files[index]!)
      sources.set(name, variable)
    }
  }
  if (sources.size === 0) return undefined
  const projectDirectory = resolve(cwd, invocation.projectDirectory ?? dirname(files[0]!))
  const identity = createHash('sha256')
    .update(
      JSON.stringify([
        projectDirectory,
        projectNameOption(invocation.globals) ?? values.COMPOSE_PROJECT_NAME,
      ]),
    )
    .digest('hex')
  const directory = join(await tmpfsBase(values), `vault-secrets-${identity.slice(0, 16)}`)
  for (const [name, variable] of sources) {
    if (values[variable] === undefined) {
      throw new NotConfiguredError(
        `compose secret ${name} takes its value from ${variable}, which is not set`,
        {
          hint: `set ${variable} in the vault (vault secrets set ${variable})`,
        },
      )
    }
  }
  await ensurePrivateDirectory(directory, 'compose secrets')
  const secretPath = (name: string) => join(directory, `secret-${name}`)
  const variants = documents.map((document, index) => mountVariants(document, files[index]!, sources))
  for (const [name, variable] of sources)
    await writePrivate(secretPath(name), values[variable]!, defaultSecretMode)
  for (const [name, variant] of variants.flatMap((found) => [...found])) {
    await writePrivate(secretPath(name), values[sources.get(variant.source)!]!, variant.access.mode)
    await applyOwner(secretPath(name), variant.access, variant.source)
  }
  const rewritten: string[] = []
  for (const [index, document] of documents.entries()) {
    const secrets = document.get('secrets')
    const declares =
      yaml.isMap(secrets) &&
      secrets.items.some((item) => yaml.isMap(item.value) && item.value.has('environment'))
    if (!declares && variants[index]!.size === 0) {
      rewritten.push(files[index]!)
      continue
    }
    if (yaml.isMap(secrets)) {
      for (const item of secrets.items) {
        if (!yaml.isMap(item.value) || !item.value.has('environment')) continue
        const name = String(yaml.isScalar(item.key) ? item.key.value : item.key)
        item.value.delete('environment')
        item.value.set('file', secretPath(name))
      }
    }
    for (const name of variants[index]!.keys()) document.setIn(['secrets', name], { file: secretPath(name) })
    const path = join(directory, `compose-${index}.yaml`)
    await writePrivate(path, document.toString(), 0o600)
    rewritten.push(path)
  }
  const detached = invocation.rest.some((arg) => arg === '-d' || arg === '--detach')
  return {
    args: [
      ...rewritten.flatMap((file) => ['-f', file]),
      '--project-directory',
      projectDirectory,
      ...invocation.globals,
      invocation.subcommand,
      ...invocation.rest,
    ],
    directory,
    removeAfter: invocation.subcommand === 'down' || (invocation.subcommand === 'up' && !detached),
  }
}

/** A reference whose uid, gid or mode needs a file of its own. */
interface MountVariant {
  source: string
  access: SecretAccess
}

/**
 * Rewrites the service references of `document` to `environment:`-sourced secrets that ask for a uid,
 * gid or mode (compose-secret-access.ts): each then names a variant secret, mounted at the original
 * target, and loses the keys v1 ignores. Returns the variants by name.
 */
function mountVariants(
  document: Document,
  file: string,
  sources: Map<string, string>,
): Map<string, MountVariant> {
  const yaml = yamlModule()
  const found = new Map<string, MountVariant>()
  const services = document.get('services')
  if (!yaml.isMap(services)) return found
  for (const entry of services.items) {
    const service = String(yaml.isScalar(entry.key) ? entry.key.value : entry.key)
    const mounted = yaml.isMap(entry.value) ? entry.value.get('secrets') : undefined
    if (!yaml.isSeq(mounted)) continue
    for (const reference of mounted.items) {
      if (!yaml.isMap(reference)) continue
      const source = reference.get('source')
      if (typeof source !== 'string' || !sources.has(source)) continue
      const access = accessOf(reference, file, service, source)
      const name = variantName(source, access)
      for (const key of ['uid', 'gid', 'mode']) reference.delete(key)
      if (name === source) continue
      if (!reference.has('target')) reference.set('target', source)
      reference.set('source', name)
      found.set(name, { source, access })
    }
  }
  return found
}

/**
 * A compose file as a document to rewrite, read and checked as the compose loader reads every file (a
 * regular file of at most 16 MiB, UTF-8, nesting and alias limits), so a hostile file is refused here
 * too instead of costing seconds and a gigabyte of memory before compose refuses it.
 */
async function readComposeDocument(file: string) {
  const { readInputBytes } = await import('../compose/input-file.js')
  const { decodeYamlText } = await import('../compose/yaml-text.js')
  const { parseComposeYaml } = await import('../compose/yaml-source.js')
  const text = decodeYamlText(readInputBytes(file, 'compose file', { named: true }), file)
  parseComposeYaml(text, file)
  return yamlModule().parseDocument(text)
}

/** Compose's own pattern for a top-level secret's name; it also keeps the name one path component. */
const secretNamePattern = /^[a-zA-Z0-9._-]+$/

/**
 * Refuses a secret name that is not compose's `[a-zA-Z0-9._-]+`: the name becomes the file
 * `secret-NAME` of the private directory, and a name such as `x/../../../home/me/.bashrc` would
 * have had the secret's value renamed over a file anywhere the user can write.
 */
function refuseUnsafeSecretName(name: string, file: string): void {
  if (secretNamePattern.test(name)) return
  throw new ComposeInputError(
    file,
    undefined,
    `secret name ${JSON.stringify(name)} is not valid: compose secret names are letters, digits, '.', '_' and '-'`,
    'rename the secret; no secret file was written',
  )
}

function projectNameOption(globals: string[]): string | undefined {
  const index = globals.findIndex((arg) => arg === '-p' || arg === '--project-name')
  return index === -1 ? undefined : globals[index + 1]
}

/** Removes the secret files' directory. */
export async function removeSecretFiles(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true })
}

/**
 * Runs a `docker-compose` command with its `environment:`-sourced secrets as private files (see the
 * module header); any other command, or a stack without such secrets, runs unchanged.
 */
export async function runWithSecretFiles(
  command: string,
  args: string[],
  env: Record<string, string>,
  run: (args: string[]) => Promise<number>,
): Promise<number> {
  const invocation = parseComposeV1(command, args)
  const plan = invocation ? await prepareSecretFiles(invocation, process.cwd(), env) : undefined
  if (!plan) return run(args)
  try {
    return await run(plan.args)
  } finally {
    if (plan.removeAfter) await removeSecretFiles(plan.directory)
  }
}

/**
 * A compose v1 command line (files and options included) with its `environment:`-sourced secrets
 * as files, their contents refreshed from `env` (what `vault rotate` uses, so a rotated value reaches
 * the file the containers mount); unchanged when the files declare no such secret.
 */
export async function composeV1Args(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<string[]> {
  const invocation = parseComposeV1('docker-compose', args)
  const plan = invocation ? await prepareSecretFiles(invocation, cwd, env) : undefined
  return plan ? plan.args : args
}
