/**
 * Env files the way Docker Compose reads them (`.env`, `--env-file`, a service's `env_file`), after
 * compose-go's `dotenv` parser: comments, `export`, `KEY=value` / `KEY: value`, quoting, escapes,
 * multi-line values and interpolation inside the file, with errors that name the line. The known,
 * deliberate differences are listed in docs/compose-differences.md.
 */
import { ComposeInputError, RequiredVariableError } from './errors.js'
import { setEntry } from './interpolate-model.js'
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
  /**
   * The values of the env files read before this one (`--env-file a --env-file b`): references
   * see `lookup`, then this file's keys, then these, as compose-go's `GetEnvFromFile` does.
   */
  earlier?: Readonly<Record<string, string>>
  /** Values as written: `${VAR}` is not interpolated (references are still reported). */
  raw?: boolean
}

/** Go's `isSpace` of the parser: blanks that are not line breaks. */
const blank = /[\t\v\f\r \u0085\u00a0]/
/** Go's `unicode.IsSpace`. */
const anySpace = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/
const keyChar = /[\p{L}\p{N}_.\-[\]]/u
const exportPrefix = /^export[\t\n\f\r ]+/
/** The escapes of a double-quoted value: `\a \b \c ...`, `\$`, `\"`, `\\` and `\0` octals. */
const escapeSequence = /\\(?:[abcfnrtv$"\\]|0[0-9]{0,3})/g
const simpleEscapes: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '"': '"',
  '\\': '\\',
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

/** The parser's position: the rest of the text and the current line. */
interface Cursor {
  rest: string
  line: number
}

/**
 * No environment value can hold a NUL byte, so a text holding one is not an env file: `env_file:
 * /proc/self/environ` (NUL-separated) read vault's own process environment, credentials included, as
 * one value into the rendered output, and `--check` saw nothing.
 */
function refuseNulBytes(text: string, file: string | undefined): void {
  const nul = text.indexOf('\0')
  if (nul === -1) return
  const line = text.slice(0, nul).split('\n').length
  throw new ComposeInputError(file, line, 'an env file holds no NUL byte: this is not a text env file')
}

/** Like `parseEnvFile`, also returning each key's line and references. */
export function readEnvFile(text: string, lookup: Lookup, options: EnvFileOptions = {}): EnvFileResult {
  const values: Record<string, string> = {}
  const entries: EnvFileEntry[] = []
  const earlier = options.earlier ?? {}
  const fileLookup: Lookup = (name) =>
    lookup(name) ??
    (Object.hasOwn(values, name) ? values[name] : Object.hasOwn(earlier, name) ? earlier[name] : undefined)
  refuseNulBytes(text, options.file)
  const cursor: Cursor = { rest: text.startsWith('\uFEFF') ? text.slice(1) : text, line: 1 }
  for (;;) {
    skipToStatement(cursor)
    if (cursor.rest === '') break
    const line = cursor.line
    const key = readKey(cursor, options.file)
    if (key.inherited) {
      const inherited = lookup(key.name)
      if (inherited !== undefined) setEntry(values, key.name, inherited)
      entries.push({
        key: key.name,
        line,
        references: [{ name: key.name, operator: '', word: '', required: false }],
      })
      continue
    }
    const raw = readValue(cursor, options.file)
    let value = raw.text
    let references: VariableReference[] = []
    if (raw.interpolate) {
      const onUnset = options.onUnset ? (name: string) => options.onUnset?.(name, line) : undefined
      try {
        references = scanReferences(raw.text)
        if (!options.raw) value = interpolate(raw.text, fileLookup, { onUnset })
      } catch (error) {
        if (!(error instanceof InterpolationError)) throw error
        if (error.code === 'ERR_INVALID_TEMPLATE') {
          const message = `Invalid template in the value of ${key.name} (the value is not shown)`
          throw new ComposeInputError(options.file, line, message, 'write a literal $ as $$')
        }
        throw new RequiredVariableError(error.variable ?? key.name, options.file, line, error.message)
      }
    }
    setEntry(values, key.name, value)
    entries.push({ key: key.name, line, references })
  }
  return { values, entries }
}

/** Skips blank space (counting lines) and `#` comment lines, up to the next statement. */
function skipToStatement(cursor: Cursor): void {
  for (;;) {
    let index = 0
    while (index < cursor.rest.length && anySpace.test(cursor.rest[index]!)) {
      if (cursor.rest[index] === '\n') cursor.line++
      index++
    }
    cursor.rest = cursor.rest.slice(index)
    if (!cursor.rest.startsWith('#')) return
    const newline = cursor.rest.indexOf('\n')
    cursor.rest = newline === -1 ? '' : cursor.rest.slice(newline)
  }
}

/** The key of a statement: up to `=`, `:` or a line break (then the value is inherited). */
function readKey(cursor: Cursor, file: string | undefined): { name: string; inherited: boolean } {
  let source = cursor.rest
  if (exportPrefix.test(source)) source = source.replace(exportPrefix, '')
  let end = -1
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!
    if (char === '=' || char === ':' || char === '\n') {
      end = index
      break
    }
    if (blank.test(char) || keyChar.test(char)) continue
    const shown = /[\p{L}\p{N}\p{P}\p{S}]/u.test(char) ? char : `U+${char.codePointAt(0)!.toString(16)}`
    throw new ComposeInputError(
      file,
      cursor.line,
      `unexpected character "${shown}" in a variable name (keys use letters, digits and _ . - [ ])`,
    )
  }
  // A bare KEY on the last line, without a line break, is inherited like any bare KEY.
  const inherited = end === -1 || source[end] === '\n'
  const name = (end === -1 ? source : source.slice(0, end)).replace(/\s+$/u, '')
  if (name.includes(' ')) throw new ComposeInputError(file, cursor.line, 'a key may not contain spaces')
  if (inherited) {
    cursor.line++
    cursor.rest = end === -1 ? '' : source.slice(end + 1)
  } else {
    let start = end + 1
    while (start < source.length && blank.test(source[start]!)) start++
    cursor.rest = source.slice(start)
  }
  return { name, inherited }
}

/** A value: unquoted to the end of the line (cut at ` #`), or quoted, possibly over several lines. */
function readValue(cursor: Cursor, file: string | undefined): { text: string; interpolate: boolean } {
  const source = cursor.rest
  const quote = source[0]
  if (quote !== '"' && quote !== "'") {
    const newline = source.indexOf('\n')
    let value = newline === -1 ? source : source.slice(0, newline)
    cursor.rest = newline === -1 ? '' : source.slice(newline + 1)
    cursor.line++
    const comment = value.indexOf(' #')
    if (comment !== -1) value = value.slice(0, comment)
    return { text: value.replace(/\s+$/u, ''), interpolate: true }
  }
  const startLine = cursor.line
  let chars = ''
  let escaped = false
  for (let index = 1; index < source.length; index++) {
    const char = source[index]!
    if (char === '\n') cursor.line++
    if (char !== quote) {
      if (!escaped && char === '\\') {
        escaped = true
        continue
      }
      if (escaped) {
        escaped = false
        chars += '\\'
      }
      chars += char
      continue
    }
    if (escaped) {
      escaped = false
      chars += char
      continue
    }
    cursor.rest = source.slice(index + 1)
    if (quote === "'") return { text: chars, interpolate: false }
    return { text: expandEscapes(chars), interpolate: true }
  }
  throw new ComposeInputError(file, startLine, `unterminated quoted value (missing closing ${quote})`)
}

/** Shell escapes of a double-quoted value; `\$` becomes `$$` (a literal `$` for interpolation). */
function expandEscapes(text: string): string {
  if (!text.includes('\\')) return text
  return text.replace(escapeSequence, (match) => {
    const simple = simpleEscapes[match[1]!]
    if (simple !== undefined && match.length === 2) return simple
    const octal = match.slice(2)
    if (!/^[0-7]{3}$/.test(octal)) return match
    const code = parseInt(octal, 8)
    return code > 255 ? match : String.fromCharCode(code)
  })
}
