/**
 * Compose secrets with an `environment:` source (`secrets: { db_password: { environment: DB_PASSWORD } }`):
 * a service that mounts such a secret uses the variable as surely as one that interpolates it. The
 * reference index holds one site per mount, so everything that asks who uses a variable (render
 * --who-uses and --check, rotate's restart plan, secrets import's SERVICES column, doctor) follows these
 * sources the same way. `vault run` delivers them to compose v1 as `file:` sources
 * (src/process/compose-secret-files.ts).
 */
import { asRecord } from './interpolate-model.js'
import type { ComposeProblem, ComposeProject, ReferenceSite } from './types.js'

/** The variable behind each top-level secret with an `environment:` source. */
export function secretEnvironmentSources(model: Record<string, unknown>): Map<string, string> {
  const sources = new Map<string, string>()
  for (const [secret, definition] of Object.entries(asRecord(model.secrets))) {
    const variable = asRecord(definition).environment
    if (typeof variable === 'string' && variable !== '') sources.set(secret, variable)
  }
  return sources
}

/** One reference site per service mount of a secret with an `environment:` source (the normalised model). */
export function secretSourceSites(
  model: Record<string, unknown>,
  locate: (service: string, field: string) => { file?: string; line?: number },
): ReferenceSite[] {
  const sources = secretEnvironmentSources(model)
  if (sources.size === 0) return []
  const sites: ReferenceSite[] = []
  for (const [service, definition] of Object.entries(asRecord(model.services))) {
    const mounts = asRecord(definition).secrets
    if (!Array.isArray(mounts)) continue
    mounts.forEach((mount, index) => {
      const source = typeof mount === 'string' ? mount : asRecord(mount).source
      const variable = typeof source === 'string' ? sources.get(source) : undefined
      if (variable === undefined) return
      const field = `secrets.${index}`
      const { file, line } = locate(service, field)
      sites.push({
        name: variable,
        operator: '',
        word: '',
        required: true,
        service,
        field,
        file: file ?? '',
        line,
      })
    })
  }
  return sites
}

/**
 * An error per secret with an `environment:` source that a service mounts and whose variable has no
 * value: `vault run` refuses to start such a stack (compose-secret-files.ts), so `render --check` and
 * doctor's required variables say so first.
 */
export function unsetSecretSources(project: ComposeProject): ComposeProblem[] {
  const mounted = new Set(
    project.references.filter((site) => site.field.startsWith('secrets.')).map((site) => site.name),
  )
  return [...secretEnvironmentSources(project.model)]
    .filter(([, variable]) => mounted.has(variable) && !Object.hasOwn(project.variables, variable))
    .map(([secret, variable]) => ({
      level: 'error',
      code: 'required_variable',
      message: `compose secret ${secret} takes its value from ${variable}, which is not set: vault secrets set ${variable}`,
      variable,
    }))
}
