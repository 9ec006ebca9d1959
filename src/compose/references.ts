/**
 * The reference index: for a variable, which services use it and where (field, file, line), and the
 * list of every variable a stack references with its default and whether it is required.
 */
import type { ComposeProject, ReferenceSite, VariableOrigin } from './types.js'

/** Where one variable is used, as `vault render --who-uses` prints it. */
export interface ReferenceLocation {
  service: string
  field: string
  file: string
  line?: number
  /** The vault template (naming the variable, directly or through others) referenced here instead. */
  through?: string
}

/** One referenced variable, as `vault render --variables` prints it (never its value). */
export interface VariableSummary {
  name: string
  required: boolean
  /** The default of a `:-` / `-` reference, when there is one. */
  defaultValue?: string
  /** The alternate of a `:+` / `+` reference, when there is one. */
  alternateValue?: string
  /** How many places reference it. */
  uses: number
  /** Where its value comes from: the vault, the project env file, the shell, its default, or nowhere. */
  source?: VariableSource
}

export type VariableSource = 'vault' | '.env' | 'shell' | 'default' | 'unset'

function compareSites(a: ReferenceLocation, b: ReferenceLocation): number {
  return (
    a.service.localeCompare(b.service) ||
    a.file.localeCompare(b.file) ||
    (a.line ?? 0) - (b.line ?? 0) ||
    a.field.localeCompare(b.field)
  )
}

/** Every place that references `name`, one entry per service, field and line, sorted. */
export function findReferences(
  project: Pick<ComposeProject, 'references'>,
  name: string,
): ReferenceLocation[] {
  const seen = new Set<string>()
  const locations: ReferenceLocation[] = []
  for (const site of project.references) {
    if (site.name !== name) continue
    const location = { service: site.service, field: site.field, file: site.file, line: site.line }
    const key = JSON.stringify(location)
    if (seen.has(key)) continue
    seen.add(key)
    locations.push(location)
  }
  return locations.sort(compareSites)
}

/**
 * Every place that uses `name`: its own references and those of `through`, the vault templates whose
 * value changes with it (src/client/resolve-templates.ts dependentTemplates). `render --who-uses` prints
 * these; `rotate` recreates exactly their services (servicesOf).
 */
export function usersOf(
  project: Pick<ComposeProject, 'references'>,
  name: string,
  through: readonly string[] = [],
): ReferenceLocation[] {
  return [
    ...findReferences(project, name),
    ...through
      .filter((template) => template !== name)
      .flatMap((template) =>
        findReferences(project, template).map((location) => ({ ...location, through: template })),
      ),
  ].sort(compareSites)
}

/** The services (sorted, each once) of some reference locations; top-level places have none. */
export function servicesOf(locations: readonly ReferenceLocation[]): string[] {
  return [...new Set(locations.map((location) => location.service).filter(Boolean))].sort()
}

/**
 * The variables a project references, sorted by name, with defaults and required flags; with the
 * project's `origins`, also where each value comes from.
 */
export function listVariables(
  sites: readonly ReferenceSite[],
  origins?: Readonly<Record<string, VariableOrigin>>,
): VariableSummary[] {
  const byName = new Map<string, VariableSummary>()
  for (const site of sites) {
    const summary = byName.get(site.name) ?? { name: site.name, required: false, uses: 0 }
    summary.uses++
    if (site.required) summary.required = true
    if ((site.operator === ':-' || site.operator === '-') && summary.defaultValue === undefined) {
      summary.defaultValue = site.word
    }
    if ((site.operator === ':+' || site.operator === '+') && summary.alternateValue === undefined) {
      summary.alternateValue = site.word
    }
    byName.set(site.name, summary)
  }
  if (origins) {
    const named = { vault: 'vault', 'env-file': '.env', environment: 'shell' } as const
    for (const summary of byName.values()) {
      const origin = origins[summary.name]
      summary.source = origin ? named[origin] : summary.defaultValue !== undefined ? 'default' : 'unset'
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
