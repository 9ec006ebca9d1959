/**
 * Field normalisations of compose v2's model that `normalize.ts` applies to each service and the
 * loader to the top level: `depends_on` entries with their defaults, `secrets`/`configs` in long
 * syntax, `build.args` as a map, empty top-level resources as empty mappings, and the relative
 * `file` of a top-level secret or config made absolute.
 */
import { isAbsolute, resolve } from 'node:path'
import { asRecord, setEntry } from './interpolate-model.js'
import { listToMap } from './merge.js'

type Model = Record<string, unknown>

/** `depends_on` as compose v2 prints it: each entry `{ condition, required }`, defaults filled in. */
export function normalizeDependsOn(value: unknown): Model {
  const entries = Array.isArray(value)
    ? value.map((name) => [String(name), null])
    : Object.entries(asRecord(value))
  return Object.fromEntries(
    entries.map(([name, spec]) => {
      const record = asRecord(spec)
      return [name, { condition: 'service_started', ...record, required: record.required ?? true }]
    }),
  )
}

/** A service's `secrets`/`configs` in long syntax (`- name` becomes `- source: name`). */
export function normalizeFileMounts(value: unknown): unknown {
  if (!Array.isArray(value)) return value
  return value.map((entry) => (typeof entry === 'string' ? { source: entry } : entry))
}

/**
 * `build` with `args` as a map (`KEY=value` lists converted); an argument without a value takes
 * the project's variable of that name (`resolve`), or is dropped when there is none, as compose-go's
 * `Normalize` does.
 */
export function normalizeBuild(value: unknown, resolve: (name: string) => string | undefined): unknown {
  const build = asRecord(value)
  if (build.args === undefined) return value
  const args: Model = {}
  for (const [key, item] of Object.entries(listToMap(build.args))) {
    const argument = item !== null && item !== undefined ? String(item) : resolve(key)
    if (argument !== undefined) setEntry(args, key, argument)
  }
  return { ...build, args }
}

const resourceSections = ['networks', 'volumes', 'secrets', 'configs']

/** The top-level resources with an empty entry (`data:`) written as an empty mapping, as compose prints it. */
export function normalizeResources(model: Model): void {
  for (const section of resourceSections) {
    const entries = model[section]
    if (entries === null || typeof entries !== 'object') continue
    model[section] = Object.fromEntries(
      Object.entries(entries as Model).map(([name, spec]) => [
        name,
        spec === null || spec === undefined ? {} : spec,
      ]),
    )
  }
}

/** Makes the relative `file` of every top-level secret and config absolute against `baseDir`. */
export function absolutizeResourceFiles(model: Model, baseDir: string): void {
  for (const section of ['secrets', 'configs']) {
    for (const spec of Object.values(asRecord(model[section]))) {
      const record = asRecord(spec)
      if (typeof record.file === 'string' && !isAbsolute(record.file) && !record.file.includes('$'))
        record.file = resolve(baseDir, record.file)
    }
  }
}
