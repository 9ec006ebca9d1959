/**
 * Interpolation of a whole compose file: every string value (never a key) is substituted, each
 * reference is recorded with its service, field and line, errors get their location, and the
 * typed fields are cast afterwards. With `collect`, problems are recorded instead of thrown.
 */
import { ComposeInputError, located, RequiredVariableError } from './errors.js'
import {
  interpolate,
  InterpolationError,
  scanReferences,
  unsetVariableWarning,
  type Lookup,
} from './interpolate.js'
import type { ComposeProblem, ReferenceSite } from './types.js'
import { childPath } from './fast-yaml.js'
import { lineOf, type YamlSource } from './yaml-source.js'

/** What interpolation reads and where it records its findings. */
export interface ModelInterpolationContext {
  lookup: Lookup
  /** Names whose values are written as `********` in the output (`--mask`). */
  maskNames?: ReadonlySet<string>
  /** When given, errors are recorded here and the value becomes empty, instead of a throw. */
  collect?: ComposeProblem[]
  warnings: ComposeProblem[]
  /** Where each reference is recorded; without it none are (the reference index is not wanted). */
  references?: ReferenceSite[]
}

/** The mask written in place of a vault value. */
export const maskText = '********'

/** Interpolates every string value of a parsed compose file (in place) and casts the typed fields. */
export function interpolateModel(
  source: YamlSource,
  context: ModelInterpolationContext,
): Record<string, unknown> {
  const value = walk(source.value, '', source, context) as Record<string, unknown>
  castTypedFields(value, source, context)
  return value
}

/** Records the references of every string value without substituting (`--no-interpolate`). */
export function recordModelReferences(source: YamlSource, context: ModelInterpolationContext): void {
  const references = context.references
  if (!references) return
  visitStrings(source.value, '', (text, path) => {
    try {
      recordReferences(text, path, source, references)
    } catch {
      /* malformed references are reported only when interpolating */
    }
  })
}

function visitStrings(node: unknown, path: string, visit: (text: string, path: string) => void): void {
  if (typeof node === 'string') visit(node, path)
  else if (Array.isArray(node))
    node.forEach((item, index) => visitStrings(item, childPath(path, index), visit))
  else if (node !== null && typeof node === 'object') {
    for (const [key, item] of Object.entries(node)) visitStrings(item, childPath(path, key), visit)
  }
}

function walk(node: unknown, path: string, source: YamlSource, context: ModelInterpolationContext): unknown {
  if (typeof node === 'string')
    return node.includes('$') ? interpolateValue(node, path, source, context) : node
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index++) {
      node[index] = walk(node[index], childPath(path, index), source, context)
    }
  } else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>
    for (const key of Object.keys(record))
      record[key] = walk(record[key], childPath(path, key), source, context)
  }
  return node
}

function siteOf(path: string): { service: string; field: string } {
  if (!path.startsWith('services.')) return { service: '', field: path }
  const rest = path.slice('services.'.length)
  const dot = rest.indexOf('.')
  if (dot === -1) return { service: rest, field: '' }
  return { service: rest.slice(0, dot), field: rest.slice(dot + 1) }
}

function fieldName(field: string, text: string): string {
  const listEntry = /^(environment|labels|annotations|build\.args)\.\d+$/.exec(field)
  if (!listEntry) return field
  const key = text.split('=')[0] ?? ''
  return `${listEntry[1]}.${key}`
}

function recordReferences(text: string, path: string, source: YamlSource, references: ReferenceSite[]): void {
  const found = scanReferences(text)
  const { service, field } = siteOf(path)
  const line = lineOf(source.lines, path)
  for (const reference of found) {
    references.push({ ...reference, service, field: fieldName(field, text), file: source.file, line })
  }
}

function interpolateValue(
  text: string,
  path: string,
  source: YamlSource,
  context: ModelInterpolationContext,
): string {
  const site = () => ({
    service: siteOf(path).service || undefined,
    file: source.file,
    line: lineOf(source.lines, path),
  })
  try {
    if (context.references) recordReferences(text, path, source, context.references)
    const onUnset = (name: string) =>
      context.warnings.push({
        level: 'warning',
        code: 'unset_variable',
        message: unsetVariableWarning(name),
        variable: name,
        ...site(),
      })
    const value = interpolate(text, context.lookup, { onUnset })
    const maskNames = context.maskNames
    if (!maskNames || !scanReferences(text).some((reference) => maskNames.has(reference.name))) return value
    const maskedLookup: Lookup = (name) => (maskNames.has(name) ? maskText : context.lookup(name))
    return interpolate(text, maskedLookup)
  } catch (error) {
    if (!(error instanceof InterpolationError)) throw error
    const message = `error while interpolating ${path}: ${error.message}`
    const required = error.code === 'ERR_REQUIRED_VARIABLE'
    const { service, line } = site()
    if (context.collect) {
      context.collect.push({
        level: 'error',
        code: required ? 'required_variable' : 'invalid_template',
        message: located(source.file, line, message),
        variable: error.variable,
        service,
        file: source.file,
        line,
      })
      return ''
    }
    if (required) throw new RequiredVariableError(error.variable ?? '', source.file, line, message)
    throw new ComposeInputError(source.file, line, message, 'write a literal $ as $$')
  }
}

type Cast = 'integer' | 'boolean' | 'number'

const serviceCasts: Record<string, Cast> = {
  scale: 'integer',
  'deploy.replicas': 'integer',
  privileged: 'boolean',
  read_only: 'boolean',
  tty: 'boolean',
  stdin_open: 'boolean',
  init: 'boolean',
  cpus: 'number',
  cpu_shares: 'integer',
  mem_swappiness: 'integer',
  oom_score_adj: 'integer',
  pids_limit: 'integer',
  'healthcheck.retries': 'integer',
  'healthcheck.disable': 'boolean',
}

const truthy = new Set(['true', 'yes', 'y', 'on', '1'])
const falsy = new Set(['false', 'no', 'n', 'off', '0'])

function castText(text: string, cast: Cast): unknown {
  const trimmed = text.trim()
  if (cast === 'boolean') {
    if (truthy.has(trimmed.toLowerCase())) return true
    if (falsy.has(trimmed.toLowerCase())) return false
    return undefined
  }
  if (trimmed === '') return undefined
  const number = Number(trimmed)
  if (!Number.isFinite(number) || (cast === 'integer' && !Number.isInteger(number))) return undefined
  return number
}

const serviceCastList = Object.entries(serviceCasts).map(([field, cast]) => ({
  field,
  parts: field.split('.'),
  cast,
}))

function castAt(
  holder: Record<string, unknown>,
  key: string,
  cast: Cast,
  path: () => string,
  source: YamlSource,
  context: ModelInterpolationContext,
): void {
  const current = holder[key]
  if (typeof current !== 'string') return
  const result = castText(current, cast)
  if (result !== undefined) holder[key] = result
  else if (current === maskText || current === '') return
  else {
    const where = path()
    const message = `${where} must be ${cast === 'integer' ? 'an integer' : `a ${cast}`} (the value is not shown)`
    if (!context.collect) throw new ComposeInputError(source.file, lineOf(source.lines, where), message)
    context.collect.push({ level: 'error', code: 'invalid_value', message, file: source.file })
  }
}

function castTypedFields(
  model: Record<string, unknown>,
  source: YamlSource,
  context: ModelInterpolationContext,
): void {
  const services = asRecord(model.services)
  for (const name of Object.keys(services)) {
    const service = asRecord(services[name])
    for (const { field, parts, cast } of serviceCastList) {
      const holder = parts.length === 1 ? service : asRecord(service[parts[0]!])
      castAt(holder, parts[parts.length - 1]!, cast, () => `services.${name}.${field}`, source, context)
    }
    if (Array.isArray(service.ports)) {
      service.ports.forEach((port, index) => {
        if (port !== null && typeof port === 'object') {
          const where = () => `services.${name}.ports.${index}`
          castAt(port as Record<string, unknown>, 'target', 'integer', where, source, context)
        }
      })
    }
  }
  for (const section of ['networks', 'volumes', 'secrets', 'configs']) {
    for (const [name, entry] of Object.entries(asRecord(model[section]))) {
      castAt(asRecord(entry), 'external', 'boolean', () => `${section}.${name}.external`, source, context)
    }
  }
}

/** The value as a mapping, or an empty one (a detached object, so writes to it are harmless). */
export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}
