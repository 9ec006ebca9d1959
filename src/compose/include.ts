/**
 * Top-level `include`, as compose-go's `ApplyInclude` reads it: the short form (a path) and the long
 * form (`path`: one or several files, later ones overriding; `project_directory`; `env_file`).
 * Each entry is loaded as its own project: paths relative to the including project's directory,
 * variables from the including project first and the include's env files under them, its own
 * relative paths resolved against its project directory. Its services, networks, volumes, secrets
 * and configs are imported; a name defined differently on both sides is compose's conflict error,
 * and a file that includes itself, directly or not, is an include cycle.
 */
import { existsSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { readEnvFile } from './env-file.js'
import { ComposeInputError } from './errors.js'
import { loadFileSet, type LoadSession, type ProjectScope } from './file-set.js'
import { asRecord, setEntry } from './interpolate-model.js'
import { childPath } from './fast-yaml.js'
import { readInputFile } from './input-file.js'
import { lineOf } from './yaml-source.js'

interface IncludeEntry {
  paths: string[]
  projectDirectory?: string
  envFiles?: string[]
  /** The entry's path in the including file (`include.0`), for locations. */
  where: string
}

/** The including file: its model (imports are written into it), its scope and its lines. */
export interface IncludingFile {
  session: LoadSession
  scope: ProjectScope
  file: string
  lines: Map<string, number>
}

const importedSections = ['services', 'volumes', 'networks', 'secrets', 'configs', 'models']

/**
 * How often one file may be loaded through `include` in a load. Each include is loaded as its own
 * project, so files that include the next one twice double the work at every level: 16 levels of
 * 100-byte files took 6 s, 30 would take days. The cap keeps the work within 100 times the files'.
 */
export const maxIncludesPerFile = 100

function stringList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined
  return (Array.isArray(value) ? value : [value]).map(String)
}

function includeEntries(value: unknown, file: string, lines: Map<string, number>): IncludeEntry[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value))
    throw new ComposeInputError(file, lineOf(lines, 'include'), '`include` must be a list')
  return value.map((entry, index) => {
    const where = childPath('include', index)
    if (typeof entry === 'string') return { paths: [entry], where }
    const spec = asRecord(entry)
    const paths = stringList(spec.path) ?? []
    if (paths.length === 0)
      throw new ComposeInputError(file, lineOf(lines, where), `${where}: path is required`)
    const projectDirectory = typeof spec.project_directory === 'string' ? spec.project_directory : undefined
    return { paths, projectDirectory, envFiles: stringList(spec.env_file), where }
  })
}

function includeEnvFiles(entry: IncludeEntry, projectDirectory: string, including: IncludingFile): string[] {
  if (entry.envFiles === undefined) {
    const dotEnv = join(projectDirectory, '.env')
    return existsSync(dotEnv) && statSync(dotEnv).isFile() ? [dotEnv] : []
  }
  return entry.envFiles
    .filter((file) => file !== '/dev/null')
    .map((file) => (isAbsolute(file) ? file : resolve(including.scope.workingDir, file)))
}

/** The scope of an included project: the including variables win over the include's env files. */
function includeScope(entry: IncludeEntry, paths: string[], including: IncludingFile): ProjectScope {
  const parent = including.scope
  const workingDir =
    entry.projectDirectory === undefined
      ? dirname(paths[0]!)
      : resolve(parent.workingDir, entry.projectDirectory)
  const fromFiles: Record<string, string> = {}
  for (const envFile of includeEnvFiles(entry, workingDir, including)) {
    const read = readEnvFile(readInputFile(envFile, 'env file'), parent.lookup, {
      file: envFile,
      earlier: fromFiles,
    })
    Object.assign(fromFiles, read.values)
    if (including.session.indexing) {
      for (const item of read.entries)
        for (const reference of item.references)
          including.session.references.push({
            ...reference,
            service: '',
            field: item.key,
            file: envFile,
            line: item.line,
          })
    }
  }
  const lookup = (name: string) =>
    parent.lookup(name) ?? (Object.hasOwn(fromFiles, name) ? fromFiles[name] : undefined)
  return { lookup, workingDir, includedFrom: [...parent.includedFrom, including.file] }
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * Loads every `include` entry of `model` and imports its resources into `model` (in place).
 * Returns the names of the imported services.
 */
export function applyIncludes(model: Record<string, unknown>, including: IncludingFile): Set<string> {
  const imported = new Set<string>()
  const entries = includeEntries(model.include, including.file, including.lines)
  delete model.include
  for (const entry of entries) {
    const line = lineOf(including.lines, entry.where)
    const paths = entry.paths.map((path) => resolve(including.scope.workingDir, path))
    const chain = [...including.scope.includedFrom, including.file]
    if (chain.includes(paths[0]!)) {
      const cycle = [...chain.slice(chain.indexOf(paths[0]!)), paths[0]!].join('\n include ')
      throw new ComposeInputError(including.file, line, `include cycle detected:\n${cycle}`)
    }
    for (const path of paths) {
      const count = (including.session.includeCounts.get(path) ?? 0) + 1
      if (count > maxIncludesPerFile)
        throw new ComposeInputError(
          including.file,
          line,
          `${path} is included more than ${maxIncludesPerFile} times (includes that include the same files multiply)`,
        )
      including.session.includeCounts.set(path, count)
    }
    const scope = includeScope(entry, paths, including)
    const included = loadFileSet(including.session, scope, paths)
    for (const section of importedSections) {
      const from = asRecord(included[section])
      if (Object.keys(from).length === 0) continue
      const to = { ...asRecord(model[section]) }
      for (const [name, value] of Object.entries(from)) {
        if (Object.hasOwn(to, name) && !sameValue(to[name], value)) {
          throw new ComposeInputError(
            including.file,
            line,
            `${section}.${name} conflicts with imported resource (from ${paths[0]})`,
            `rename it or remove one of the definitions`,
          )
        }
        setEntry(to, name, value)
        if (section === 'services') imported.add(name)
      }
      model[section] = to
    }
  }
  return imported
}
