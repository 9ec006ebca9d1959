/**
 * Loading a compose project the way `docker compose config` does: file discovery (override file
 * included), the layered variables, interpolation of each file, `extends`, the merge of the `-f`
 * files in order and the normalised model, plus the reference sites and problems of the load.
 */
import { existsSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { ComposeFileNotFoundError } from './errors.js'
import { loadProjectEnvironment } from './environment.js'
import { resolveExtends, type LoadedFile } from './extends.js'
import { asRecord, interpolateModel, recordModelReferences } from './interpolate-model.js'
import { mergeModels } from './merge.js'
import { absolutizeServicePaths, normalizeService, sortKeys } from './normalize.js'
import type { ComposeProblem, ComposeProject, ReferenceSite } from './types.js'
import { parseComposeYaml, readTextFile } from './yaml-source.js'

export interface LoadComposeOptions {
  /** `-f` files, relative to `cwd`; discovered as compose does when empty. */
  files?: string[]
  projectDirectory?: string
  projectName?: string
  /** `--env-file` files, relative to `cwd`. */
  envFiles?: string[]
  cwd?: string
  /** The process environment (defaults to `process.env`). */
  environment?: Record<string, string | undefined>
  /** The vault layer's secrets. */
  secrets?: Record<string, string>
  preferHostEnv?: boolean
  /** False for `--no-interpolate`. */
  interpolate?: boolean
  /** Write values that came from the vault as `********`. */
  mask?: boolean
  /** Record errors as problems instead of throwing on the first (`--check`). */
  collectProblems?: boolean
  /** False skips building `references` (the reference index), which plain rendering does not show. */
  referenceIndex?: boolean
}

const composeFileNames = ['compose.yaml', 'compose.yml', 'docker-compose.yml', 'docker-compose.yaml']
const overrideFileNames = [
  'compose.override.yaml',
  'compose.override.yml',
  'docker-compose.override.yml',
  'docker-compose.override.yaml',
]
const topLevelOrder = ['name', 'services', 'networks', 'volumes', 'secrets', 'configs']

/** The compose files to load: the given ones, `COMPOSE_FILE`, or the first default found upwards. */
export function discoverComposeFiles(
  cwd: string,
  files: string[] = [],
  composeFileVariable?: string,
): string[] {
  if (files.length > 0) return files.map((file) => resolve(cwd, file))
  if (composeFileVariable)
    return composeFileVariable
      .split(':')
      .filter(Boolean)
      .map((file) => resolve(cwd, file))
  for (let directory = resolve(cwd); ; directory = dirname(directory)) {
    const found = composeFileNames.find((name) => existsSync(join(directory, name)))
    if (found) {
      const override = overrideFileNames.find((name) => existsSync(join(directory, name)))
      return override ? [join(directory, found), join(directory, override)] : [join(directory, found)]
    }
    if (dirname(directory) === directory) break
  }
  throw new ComposeFileNotFoundError('no configuration file provided: not found', {
    hint: `create ${composeFileNames[0]} or pass -f`,
  })
}

function projectNameOf(
  explicit: string | undefined,
  model: Record<string, unknown>,
  directory: string,
): string {
  const raw = explicit ?? (typeof model.name === 'string' ? model.name : basename(directory))
  return raw.toLowerCase().replace(/[^a-z0-9_-]/g, '')
}

/** Loads, interpolates, extends, merges and normalises a compose project. */
export function loadComposeProject(options: LoadComposeOptions = {}): ComposeProject {
  const cwd = resolve(options.cwd ?? process.cwd())
  const processEnv = options.environment ?? process.env
  const files = discoverComposeFiles(cwd, options.files, processEnv.COMPOSE_FILE)
  const workingDir = resolve(cwd, options.projectDirectory ?? dirname(files[0]!))
  const environment = loadProjectEnvironment({
    cwd,
    projectDirectory: workingDir,
    envFiles: options.envFiles,
    processEnv,
    secrets: options.secrets,
    preferHostEnv: options.preferHostEnv,
  })
  const interpolating = options.interpolate !== false
  const indexing = options.referenceIndex !== false
  const problems: ComposeProblem[] = []
  const warnings: ComposeProblem[] = []
  const sitesByFile = new Map<string, ReferenceSite[]>()
  const maskNames = options.mask
    ? new Set(
        Object.keys(environment.origins).filter(
          (name) => environment.origins[name] === 'vault' || name.startsWith('VAULT_'),
        ),
      )
    : undefined
  const cache = new Map<string, LoadedFile>()
  const loadFile = (file: string, baseDir: string): LoadedFile => {
    const cached = cache.get(file)
    if (cached) return cached
    const source = parseComposeYaml(readTextFile(file, 'compose file'), file)
    const references: ReferenceSite[] = []
    const context = {
      lookup: environment.lookup,
      maskNames,
      collect: options.collectProblems ? problems : undefined,
      warnings,
      references: indexing ? references : undefined,
    }
    let model = source.value
    if (interpolating) model = interpolateModel(source, context)
    else recordModelReferences(source, context)
    absolutizeServicePaths(model, baseDir)
    sitesByFile.set(file, references)
    const loaded = { file, model, lines: source.lines }
    cache.set(file, loaded)
    return loaded
  }

  let merged: Record<string, unknown> = {}
  const serviceFiles = new Map<string, string>()
  const references: ReferenceSite[] = [...environment.references]
  for (const file of files) {
    const loaded = loadFile(file, workingDir)
    const resolved = resolveExtends(loaded, (other) => loadFile(other, dirname(other)))
    const own = sitesByFile.get(file) ?? []
    references.push(...own)
    for (const [service, bases] of Object.entries(resolved.bases)) {
      if (!serviceFiles.has(service)) serviceFiles.set(service, file)
      for (const base of bases) {
        const inherited = (sitesByFile.get(base.file) ?? []).filter((site) => site.service === base.service)
        references.push(...inherited.map((site) => ({ ...site, service })))
      }
    }
    merged = mergeModels(merged, { ...loaded.model, services: resolved.services })
  }

  const normalizeContext = {
    lookup: environment.lookup,
    interpolate: interpolating,
    references,
    maskNames,
    envFiles: new Map(),
  }
  const services: Record<string, unknown> = {}
  const mergedServices = asRecord(merged.services)
  for (const name of Object.keys(mergedServices).sort()) {
    const service = asRecord(mergedServices[name])
    services[name] = normalizeService(name, service, normalizeContext, serviceFiles.get(name) ?? files[0]!)
  }
  const name = projectNameOf(options.projectName ?? processEnv.COMPOSE_PROJECT_NAME, merged, workingDir)
  const model: Record<string, unknown> = { name, services }
  for (const key of topLevelOrder.slice(2)) if (merged[key] !== undefined) model[key] = merged[key]
  for (const [key, value] of Object.entries(sortKeys(merged))) {
    if (!topLevelOrder.includes(key) && key !== 'version') model[key] = value
  }
  return {
    name,
    workingDir,
    files,
    envFiles: environment.envFiles,
    model,
    references: indexing ? references : [],
    problems: [...problems, ...warnings],
    variables: environment.variables,
    origins: environment.origins,
    shadowed: environment.shadowed,
  }
}
