/**
 * Interpolation of a whole compose file: every string value (never a key) is substituted, each
 * reference is recorded with its service, field and line, errors get their location, and the
 * typed fields are cast afterwards. With `collect`, problems are recorded instead of thrown.
 */
import { castTypedFields } from './casts.js'
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
import { maskText } from '../text/mask-text.js'

/** What interpolation reads and where it records its findings. */
export interface ModelInterpolationContext {
  lookup: Lookup
  /** Names whose values are written as `********` in the output (`--mask`). */
  maskNames?: ReadonlySet<string>
  /** The lookup for the references of an error's `${V:?message}` (vault values masked: messageLookupOf). */
  messageLookup?: Lookup
  /** When given, errors are recorded here and the value becomes empty, instead of a throw. */
  collect?: ComposeProblem[]
  warnings: ComposeProblem[]
  /** Where each reference is recorded; without it none are (the reference index is not wanted). */
  references?: ReferenceSite[]
}

/**
 * `lookup` with the value of each of `secretNames` (when it has one) written as the mask: the lookup
 * for the references inside an error's `${V:?message}`, which would otherwise print vault values.
 */
export function messageLookupOf(lookup: Lookup, secretNames: ReadonlySet<string>): Lookup {
  return (name) => (secretNames.has(name) && lookup(name) ? maskText : lookup(name))
}

/** A copy of a parsed compose file with every string value interpolated and the typed fields cast. */
export function interpolateModel(
  source: YamlSource,
  context: ModelInterpolationContext,
): Record<string, unknown> {
  const value = walk(source.value, '', source, context) as Record<string, unknown>
  castTypedFields(value, source, {
    collect: context.collect,
    masked: context.maskNames ? maskText : undefined,
  })
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

/**
 * A substituted copy of `node`. Never writes into the parsed value: a YAML alias makes several
 * paths share one parsed object, and each use must be substituted once, from the original text.
 * A child's path is built only when something there needs it (a `$` to substitute, or a collection
 * to walk), which keeps the walk of a large file from allocating a string per value.
 */
function walk(node: unknown, path: string, source: YamlSource, context: ModelInterpolationContext): unknown {
  if (typeof node === 'string')
    return node.includes('$') ? interpolateValue(node, path, source, context) : node
  if (Array.isArray(node)) {
    const copy: unknown[] = []
    for (let index = 0; index < node.length; index++) {
      const item: unknown = node[index]
      copy.push(needsWalk(item) ? walk(item, childPath(path, index), source, context) : item)
    }
    return copy
  }
  if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>
    const copy: Record<string, unknown> = {}
    for (const key of Object.keys(record)) {
      const item = record[key]
      setEntry(copy, key, needsWalk(item) ? walk(item, childPath(path, key), source, context) : item)
    }
    return copy
  }
  return node
}

/** True for the values `walk` changes or copies: strings with a `$`, and collections. */
function needsWalk(node: unknown): boolean {
  return typeof node === 'string' ? node.includes('$') : node !== null && typeof node === 'object'
}

/** A deep copy of a parsed value, so later stages may write into it (aliases share objects). */
export function copyModel<T>(node: T): T {
  if (Array.isArray(node)) return node.map(copyModel) as T
  if (node !== null && typeof node === 'object') {
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(node)) setEntry(copy, key, copyModel(item))
    return copy as T
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
    const value = interpolate(text, context.lookup, { onUnset, messageLookup: context.messageLookup })
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

/** The value as a mapping, or an empty one (a detached object, so writes to it are harmless). */
export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}

/**
 * `record[key] = value` as an own property, as Object.fromEntries writes it: a `__proto__` key
 * (which the full YAML parser can give) stays an entry instead of replacing the prototype.
 */
export function setEntry(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
  else record[key] = value
}
