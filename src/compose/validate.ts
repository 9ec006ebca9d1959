/**
 * The consistency checks compose-go runs on a loaded project (`loader/validate.go`): every network,
 * named volume, secret and config a service uses is declared, every `depends_on` target and
 * `network_mode: service:x` exists and is enabled, and every service has an image or a build.
 * Each finding names the file and line of the reference.
 */
import { maskText } from '../text/mask-text.js'
import { asRecord } from './interpolate-model.js'
import type { ComposeProblem } from './types.js'

type Model = Record<string, unknown>

/** Where a service's field was written: the file and line to report. */
export type ServiceLocator = (service: string, field: string) => { file?: string; line?: number }

export interface ValidationInput {
  /** The enabled services, merged. */
  services: Record<string, Model>
  /** Services switched off by profiles (a required dependency on one is an error). */
  disabled: Record<string, Model>
  /** The merged top-level model (networks, volumes, secrets, configs). */
  model: Model
  locate: ServiceLocator
}

/** Names of a field that is a list of names or a mapping keyed by name (`networks`, `depends_on`). */
function namesOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String)
  return Object.keys(asRecord(value))
}

/** The named-volume source of a service volume entry, or undefined (bind, tmpfs, anonymous). */
export function namedVolumeSource(entry: unknown): string | undefined {
  if (typeof entry === 'string') {
    const parts = entry.split(':')
    if (parts.length < 2) return undefined
    const source = parts[0]!
    if (source === '' || /^[./~\\]/.test(source) || /^[A-Za-z]$/.test(source)) return undefined
    return source
  }
  const record = asRecord(entry)
  const type = record.type ?? 'volume'
  return type === 'volume' && typeof record.source === 'string' && record.source !== ''
    ? record.source
    : undefined
}

function sourceOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry
  const source = asRecord(entry).source
  return typeof source === 'string' ? source : undefined
}

function requiredDependency(value: unknown, target: string): boolean {
  if (Array.isArray(value)) return true
  return asRecord(asRecord(value)[target]).required !== false
}

/** compose's consistency checks over the enabled services; one problem per broken reference. */
export function validateProject(input: ValidationInput): ComposeProblem[] {
  const problems: ComposeProblem[] = []
  const declared = (section: string) => asRecord(input.model[section])
  const report = (service: string, field: string, message: string, hint?: string) => {
    const { file, line } = input.locate(service, field)
    problems.push({
      level: 'error',
      code: 'invalid_reference',
      message: hint ? `${message} (${hint})` : message,
      service,
      file,
      line,
    })
  }
  for (const [name, service] of Object.entries(input.services)) {
    if (service.image === undefined && service.build === undefined && service.provider === undefined) {
      report(name, '', `service "${name}" has neither an image nor a build context specified`)
    }
    namesOf(service.networks).forEach((network, index) => {
      const field = Array.isArray(service.networks) ? `networks.${index}` : `networks.${network}`
      if (network !== 'default' && !Object.hasOwn(declared('networks'), network))
        report(name, field, `service "${name}" refers to undefined network ${network}`)
    })
    namesOf(service.depends_on).forEach((target, index) => {
      if (Object.hasOwn(input.services, target)) return
      const disabled = Object.hasOwn(input.disabled, target)
      if (disabled && !requiredDependency(service.depends_on, target)) return
      const hint = disabled
        ? `"${target}" is not enabled by the active profiles: give both services a common profile or pass --profile`
        : undefined
      const field = Array.isArray(service.depends_on) ? `depends_on.${index}` : `depends_on.${target}`
      report(name, field, `service "${name}" depends on undefined service "${target}"`, hint)
    })
    const mode = typeof service.network_mode === 'string' ? service.network_mode : ''
    if (mode.startsWith('service:') && !Object.hasOwn(input.services, mode.slice(8))) {
      report(name, 'network_mode', `service "${mode.slice(8)}" not found for network_mode '${mode}'`)
    }
    const volumes = Array.isArray(service.volumes) ? service.volumes : []
    volumes.forEach((entry, index) => {
      const source = namedVolumeSource(entry)
      // A source holding `$` (not interpolated) or a masked value cannot be judged.
      const unknown = source === undefined || source.includes('$') || source.includes(maskText)
      if (!unknown && !Object.hasOwn(declared('volumes'), source))
        report(name, `volumes.${index}`, `service "${name}" refers to undefined volume ${source}`)
    })
    for (const section of ['secrets', 'configs'] as const) {
      const entries = Array.isArray(service[section]) ? (service[section] as unknown[]) : []
      entries.forEach((entry, index) => {
        const source = sourceOf(entry)
        if (source !== undefined && !Object.hasOwn(declared(section), source))
          report(
            name,
            `${section}.${index}`,
            `service "${name}" refers to undefined ${section.slice(0, -1)} ${source}`,
          )
      })
    }
  }
  return problems
}
