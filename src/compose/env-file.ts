/**
 * Env files the way Docker Compose reads them (`.env`, `--env-file`, a service's `env_file`):
 * comments, `export`, `KEY=value` / `KEY: value`, quoting, escapes, multi-line values and
 * interpolation inside the file, with errors that name the line.
 */
import { ComposeInputError, RequiredVariableError } from './errors.js'
import {
  interpolate,
  InterpolationError,
  scanReferences,
  type Lookup,
  type VariableReference,
} from './interpolate.js'

/** One key read from an env file, with where it was and which variables its value referenced. */
export interface EnvFileEntry {
  key: string
  line: number
  references: VariableReference[]
}

export interface EnvFileResult {
  values: Record<string, string>
  entries: EnvFileEntry[]
}

export interface EnvFileOptions {
  /** The file name used in error messages. */
  file?: string
  /** Called for each plain reference to an unset variable. */
  onUnset?: (name: string, line: number) => void
}

const keyPattern = /^[A-Za-z0-9_.\-[\]]+$/
const doubleQuoteEscapes: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  a: '\x07',
  '\\': '\\',
  '"': '"',
  "'": "'",
  $: '$$',
}

/**
 * Reads an env file: returns its values (last duplicate wins). References look up `lookup` first,
 * then the keys already read. A bare `KEY` takes its value from `lookup` (left out when unset).
 */
export function parseEnvFile(
  text: string,
  lookup: Lookup,
  options: EnvFileOptions = {},
): Record<string, string> {
  return readEnvFile(text, lookup, options).values
}

/** Like `parseEnvFile`, also returning each key's line and references. */
export function readEnvFile(text: string, lookup: Lookup, options: EnvFileOptions = {}): EnvFileResult {
  const values: Record<string, string> = {}
  const entries: EnvFileEntry[] = []
  const fileLookup: Lookup = (name) =>
    lookup(name) ?? (Object.hasOwn(values, name) ? values[name] : undefined)
  const source = text.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '')
  let position = 0
  let line = 1
  while (position < source.length) {
    const lineEnd = indexOrEnd(source, '\n', position)
    const startLine = line
    const raw = source.slice(position, lineEnd)
    const trimmed = raw.trim()
    if (trimmed === '' || trimmed.startsWith('#')) {
      position = lineEnd + 1
      line++
      continue
    }
    const body = trimmed.startsWith('export ') ? trimmed.slice(7).trimStart() : trimmed
    const separator = findSeparator(body)
    const key = (separator === -1 ? body : body.slice(0, separator)).trim()
    if (!keyPattern.test(key)) {
      const what = /\s/.test(key)
        ? 'a key may not contain spaces'
        : 'invalid key (keys use letters, digits and _ . - [ ])'
      throw new ComposeInputError(options.file, startLine, what)
    }
    if (separator === -1) {
      const inherited = lookup(key)
      if (inherited !== undefined) values[key] = inherited
      entries.push({
        key,
        line: startLine,
        references: [{ name: key, operator: '', word: '', required: false }],
      })
      position = lineEnd + 1
      line++
      continue
    }
    const valueStart = source.indexOf(body, position) + separator + 1
    const parsed = readValue(source, skipBlanks(source, valueStart), options.file, startLine)
    const onUnset = options.onUnset ? (name: string) => options.onUnset?.(name, startLine) : undefined
    let value = parsed.template
    let references: VariableReference[] = []
    if (parsed.interpolate) {
      try {
        references = scanReferences(parsed.template)
        value = interpolate(parsed.template, fileLookup, { onUnset })
      } catch (error) {
        if (!(error instanceof InterpolationError)) throw error
        if (error.code === 'ERR_INVALID_TEMPLATE') {
          const message = `Invalid template in the value of ${key} (the value is not shown)`
          throw new ComposeInputError(options.file, startLine, message, 'write a literal $ as $$')
        }
        throw new RequiredVariableError(error.variable ?? key, options.file, startLine, error.message)
      }
    }
    values[key] = value
    entries.push({ key, line: startLine, references })
    line += countNewlines(source, position, parsed.end)
    position = parsed.end
  }
  return { values, entries }
}

function indexOrEnd(text: string, search: string, from: number): number {
  const index = text.indexOf(search, from)
  return index === -1 ? text.length : index
}

function skipBlanks(text: string, from: number): number {
  let index = from
  while (text[index] === ' ' || text[index] === '\t') index++
  return index
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0
  for (
    let index = text.indexOf('\n', from);
    index !== -1 && index < to;
    index = text.indexOf('\n', index + 1)
  ) {
    count++
  }
  return count
}

function findSeparator(body: string): number {
  const equals = body.indexOf('=')
  const colon = body.indexOf(': ')
  if (equals === -1) return colon
  if (colon === -1) return equals
  return Math.min(equals, colon)
}

interface ParsedValue {
  /** The value before interpolation (`$` escaped as `$$` where the file escaped it). */
  template: string
  interpolate: boolean
  /** Index just past the value's line (after its newline). */
  end: number
}

function readValue(source: string, start: number, file: string | undefined, line: number): ParsedValue {
  const quote = source[start]
  if (quote === "'" || quote === '"') {
    const close = findClosingQuote(source, start + 1, quote)
    if (close === -1)
      throw new ComposeInputError(file, line, `unterminated quoted value (missing closing ${quote})`)
    const inner = source.slice(start + 1, close)
    const end = indexOrEnd(source, '\n', close) + 1
    if (quote === "'") return { template: inner, interpolate: false, end }
    return { template: unescapeDoubleQuoted(inner), interpolate: true, end }
  }
  const lineEnd = indexOrEnd(source, '\n', start)
  let value = source.slice(start, lineEnd)
  const comment = value.search(/\s#/)
  if (comment !== -1) value = value.slice(0, comment)
  return { template: value.trim(), interpolate: true, end: lineEnd + 1 }
}

function findClosingQuote(source: string, from: number, quote: string): number {
  for (let index = from; index < source.length; index++) {
    const char = source[index]
    if (char === '\\' && quote === '"') index++
    else if (char === quote) return index
  }
  return -1
}

function unescapeDoubleQuoted(inner: string): string {
  return inner.replace(/\\(.)/gs, (whole, char: string) => doubleQuoteEscapes[char] ?? whole)
}
