/**
 * Loading a set of compose files into one merged model, as compose-go's `loadYamlModel` does: each
 * file is parsed, interpolated, its relative paths made absolute, its top-level `include` imported,
 * its `extends` resolved, and the files merged in order. Included projects are loaded the same way
 * with their own variables and project directory (`include.ts`).
 */
import { dirname } from 'node:path'
import { resolveExtends, type LoadedFile } from './extends.js'
import { applyIncludes } from './include.js'
import {
  asRecord,
  copyModel,
  interpolateModel,
  messageLookupOf,
  recordModelReferences,
} from './interpolate-model.js'
import type { Lookup } from './interpolate.js'
import { mergeModels } from './merge.js'
import { absolutizeServicePaths } from './normalize.js'
import { absolutizeResourceFiles } from './normalize-fields.js'
import type { ComposeProblem, ReferenceSite } from './types.js'
import { findV1RefusedKeys } from './v1-keys.js'
import { readInputBytes } from './input-file.js'
import { parseComposeYaml } from './yaml-source.js'
import { decodeYamlText } from './yaml-text.js'

/** What every file of a load shares: how to interpolate and where findings go. */
export interface LoadSession {
  interpolate: boolean
  indexing: boolean
  maskNames?: ReadonlySet<string>
  /** Names whose values come from the vault (kept out of error messages). */
  secretNames?: ReadonlySet<string>
  /** Set when collecting errors as problems (`--check`) instead of throwing. */
  collect?: ComposeProblem[]
  warnings: ComposeProblem[]
  /** Every reference site found, compose files and env files of includes. */
  references: ReferenceSite[]
  /** The file each service was first defined in, and the lines of every loaded file. */
  serviceFiles: Map<string, string>
  lines: Map<string, Map<string, number>>
  /** Every compose file read, includes and extends files too. */
  filesRead: Set<string>
  /** How many times each file was loaded through `include` (include.ts caps it). */
  includeCounts: Map<string, number>
  /** The compose files the user gave (`-f`, COMPOSE_FILE, discovery): only these may be pipes. */
  namedFiles: ReadonlySet<string>
  /** Set to report the keys docker-compose v1 refuses (into `collect`). */
  checkV1Keys?: boolean
}

/** One project's scope: its variables and the directory its relative paths start from. */
export interface ProjectScope {
  lookup: Lookup
  workingDir: string
  /** The files that include this project, outermost first (for cycle errors). */
  includedFrom: string[]
}

interface ScopedFile extends LoadedFile {
  references: ReferenceSite[]
}

function loadOneFile(session: LoadSession, scope: ProjectScope, file: string, baseDir: string): ScopedFile {
  const named = session.namedFiles.has(file)
  const text = decodeYamlText(readInputBytes(file, 'compose file', { named }), file)
  const source = parseComposeYaml(text, file)
  const references: ReferenceSite[] = []
  const context = {
    lookup: scope.lookup,
    maskNames: session.maskNames,
    messageLookup: session.secretNames && messageLookupOf(scope.lookup, session.secretNames),
    collect: session.collect,
    warnings: session.warnings,
    references: session.indexing ? references : undefined,
  }
  let model: Record<string, unknown>
  if (session.interpolate) model = interpolateModel(source, context)
  else {
    recordModelReferences(source, context)
    model = copyModel(source.value)
  }
  if (session.checkV1Keys && session.collect)
    session.collect.push(...findV1RefusedKeys(model, file, source.lines))
  absolutizeServicePaths(model, baseDir)
  absolutizeResourceFiles(model, baseDir)
  session.lines.set(file, source.lines)
  session.filesRead.add(file)
  return { file, model, lines: source.lines, references }
}

/**
 * Loads `files` of one project (later files override earlier ones) and returns the merged model,
 * includes imported and `extends` resolved; reference sites and service files go to `session`.
 */
export function loadFileSet(
  session: LoadSession,
  scope: ProjectScope,
  files: string[],
): Record<string, unknown> {
  const cache = new Map<string, ScopedFile>()
  const load = (file: string, baseDir: string): ScopedFile => {
    const cached = cache.get(file)
    if (cached) return cached
    const loaded = loadOneFile(session, scope, file, baseDir)
    cache.set(file, loaded)
    return loaded
  }
  let merged: Record<string, unknown> = {}
  for (const file of files) {
    const loaded = load(file, scope.workingDir)
    const own = { ...loaded.model }
    const imported = applyIncludes(own, { session, scope, file, lines: loaded.lines })
    const resolved = resolveExtends({ ...loaded, model: own }, (other) => load(other, dirname(other)))
    session.references.push(...loaded.references)
    for (const [service, bases] of Object.entries(resolved.bases)) {
      if (!imported.has(service) && !session.serviceFiles.has(service))
        session.serviceFiles.set(service, file)
      for (const base of bases) {
        const inherited = (cache.get(base.file)?.references ?? []).filter(
          (site) => site.service === base.service,
        )
        session.references.push(...inherited.map((site) => ({ ...site, service })))
      }
    }
    merged = mergeModels(merged, { ...own, services: resolved.services })
  }
  delete merged.include
  return merged
}

/** The services of a model as a mapping (empty when there are none). */
export function servicesOf(model: Record<string, unknown>): Record<string, Record<string, unknown>> {
  return asRecord(model.services) as Record<string, Record<string, unknown>>
}
