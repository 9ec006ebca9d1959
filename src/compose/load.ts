/**
 * Loading a compose project the way `docker compose config` does: file discovery (override file
 * included), the layered variables, the files loaded and merged (`file-set.ts`: interpolation,
 * `include`, `extends`), the services selected by profile, compose's consistency checks and the
 * normalised model, plus the reference sites and problems of the load.
 */
import { existsSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { ComposeInputError, NoComposeFileError, located } from './errors.js'
import { loadProjectEnvironment } from './environment.js'
import { childPath } from './fast-yaml.js'
import { loadFileSet, servicesOf, type LoadSession } from './file-set.js'
import { setEntry } from './interpolate-model.js'
import { normalizeService, sortKeys } from './normalize.js'
import { normalizeResources } from './normalize-fields.js'
import { secretSourceSites } from './secret-sources.js'
import { activeProfiles, selectServices } from './profiles.js'
import type { ComposeProblem, ComposeProject } from './types.js'
import { validateProject } from './validate.js'
import { lineOf } from './yaml-source.js'

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
  /** Names of the vault layer whose values are not secrets (`secrets set --plain`): never masked. */
  plainNames?: ReadonlySet<string>
  preferHostEnv?: boolean
  /** False for `--no-interpolate`. */
  interpolate?: boolean
  /** Write values that came from the vault as `********`. */
  mask?: boolean
  /** Record errors as problems instead of throwing on the first (`--check`). */
  collectProblems?: boolean
  /** False skips building `references` (the reference index), which plain rendering does not show. */
  referenceIndex?: boolean
  /** `--profile` values; when empty, `COMPOSE_PROFILES` (environment, then the project env file). */
  profiles?: string[]
  /** With `collectProblems`: also report every key docker-compose v1 refuses (the client found is v1). */
  checkV1Keys?: boolean
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
  throw new NoComposeFileError('no configuration file provided: not found', {
    hint: `create ${composeFileNames[0]} or pass -f`,
  })
}

/** compose-go's `NormalizeProjectName`: lower case, only `[a-z0-9_-]`, no leading `_` or `-`. */
export function normalizeProjectName(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '')
    .replace(/^[_-]+/, '')
}

/**
 * The project name as compose picks it: `-p` or COMPOSE_PROJECT_NAME as given (refused unless
 * already normalised), else the top-level `name`, else the project directory's name, normalised.
 */
function projectNameOf(
  explicit: string | undefined,
  model: Record<string, unknown>,
  directory: string,
): string {
  if (explicit) {
    if (normalizeProjectName(explicit) === explicit) return explicit
    throw new ComposeInputError(
      undefined,
      undefined,
      `invalid project name ${JSON.stringify(explicit)}: must consist only of lowercase alphanumeric characters, hyphens, and underscores as well as start with a letter or number`,
    )
  }
  const named = typeof model.name === 'string' ? normalizeProjectName(model.name) : ''
  return named || normalizeProjectName(basename(directory))
}

/** The merged model's top-level sections other than `services`, in compose's order, `version` dropped. */
function topLevelSections(merged: Record<string, unknown>): Record<string, unknown> {
  const sections: Record<string, unknown> = {}
  for (const key of topLevelOrder.slice(2)) if (merged[key] !== undefined) sections[key] = merged[key]
  for (const [key, value] of Object.entries(sortKeys(merged))) {
    if (!topLevelOrder.includes(key) && key !== 'version') setEntry(sections, key, value)
  }
  return sections
}

/** Records validation findings, or throws the first when not collecting. */
function reportInvalid(problems: ComposeProblem[], collect: ComposeProblem[] | undefined): void {
  const first = problems[0]
  if (!first) return
  if (collect) {
    collect.push(
      ...problems.map((problem) => ({
        ...problem,
        message: located(problem.file, problem.line, problem.message),
      })),
    )
    return
  }
  throw new ComposeInputError(first.file, first.line, `${first.message}: invalid compose project`)
}

/** Loads, interpolates, includes, extends, merges, selects by profile and normalises a compose project. */
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
  const problems: ComposeProblem[] = []
  const maskNames = options.mask
    ? new Set(
        Object.keys(environment.origins).filter(
          (name) =>
            (environment.origins[name] === 'vault' && !options.plainNames?.has(name)) ||
            name.startsWith('VAULT_'),
        ),
      )
    : undefined
  const session: LoadSession = {
    interpolate: interpolating,
    indexing: options.referenceIndex !== false,
    maskNames,
    secretNames: new Set(
      Object.keys(environment.origins).filter((name) => environment.origins[name] === 'vault'),
    ),
    collect: options.collectProblems ? problems : undefined,
    warnings: [],
    references: [...environment.references],
    serviceFiles: new Map(),
    lines: new Map(),
    filesRead: new Set(),
    namedFiles: new Set(files),
    includeCounts: new Map(),
    checkV1Keys: options.checkV1Keys,
  }
  const merged = loadFileSet(session, { lookup: environment.lookup, workingDir, includedFrom: [] }, files)
  const composeVariable = (name: string) =>
    processEnv[name] ?? (environment.origins[name] === 'env-file' ? environment.variables[name] : undefined)
  const profiles = activeProfiles(options.profiles, composeVariable('COMPOSE_PROFILES'))
  const { enabled, disabled } = selectServices(servicesOf(merged), profiles)
  const fileOf = (service: string) => session.serviceFiles.get(service) ?? files[0]!
  const locate = (service: string, field: string) => {
    const file = fileOf(service)
    return {
      file,
      line: lineOf(session.lines.get(file) ?? new Map(), childPath(`services.${service}`, field)),
    }
  }
  if (interpolating)
    reportInvalid(validateProject({ services: enabled, disabled, model: merged, locate }), session.collect)

  const normalizeContext = {
    lookup: environment.lookup,
    interpolate: interpolating,
    collecting: options.collectProblems,
    references: session.references,
    maskNames,
    envFiles: new Map(),
  }
  const services: Record<string, unknown> = {}
  for (const name of Object.keys(enabled).sort()) {
    setEntry(services, name, normalizeService(name, enabled[name]!, normalizeContext, fileOf(name)))
  }
  const name = projectNameOf(
    options.projectName ?? composeVariable('COMPOSE_PROJECT_NAME'),
    merged,
    workingDir,
  )
  const model: Record<string, unknown> = { name, services, ...topLevelSections(merged) }
  normalizeResources(model)
  const references = session.indexing
    ? [
        ...session.references.filter((site) => site.service === '' || Object.hasOwn(enabled, site.service)),
        ...secretSourceSites(model, locate),
      ]
    : []
  return {
    name,
    workingDir,
    files,
    includedFiles: [...session.filesRead].filter((file) => !files.includes(file)),
    envFiles: environment.envFiles,
    profiles,
    disabledServices: Object.keys(disabled).sort(),
    model,
    references,
    problems: [...problems, ...session.warnings],
    variables: environment.variables,
    origins: environment.origins,
    shadowed: environment.shadowed,
  }
}
