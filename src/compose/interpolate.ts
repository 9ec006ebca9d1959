/**
 * The interpolation engine: Docker Compose v2's `$VAR` / `${VAR...}` rules as a pure module.
 * It owns substitution (`interpolate`), the scan of a template's references (`scanReferences`)
 * and the compose error messages. No I/O, no knowledge of files: callers add locations.
 */
import { UsageError } from '../errors.js'

/** Looks a variable up: its value, or undefined when it is unset. */
export type Lookup = (name: string) => string | undefined

/** The operator of a braced reference; `''` for a plain `$V` / `${V}`. */
export type ReferenceOperator = '' | ':-' | '-' | ':?' | '?' | ':+' | '+'

/** One `$V` / `${V<op>word}` found in a template. */
export interface VariableReference {
  name: string
  operator: ReferenceOperator
  /** The raw word after the operator (defaults, error messages, alternates), not interpolated. */
  word: string
  /** True for `:?` and `?`. */
  required: boolean
}

export interface InterpolateOptions {
  /** Called for each plain reference to an unset variable (compose warns and uses an empty string). */
  onUnset?: (name: string) => void
  /** The lookup for the references inside a `${V:?message}` (default: the lookup); one that masks secrets keeps their values out of the error. */
  messageLookup?: Lookup
}

/** A malformed reference or a required variable without a value, with compose's own message. */
export class InterpolationError extends UsageError {
  override name = 'InterpolationError'
  override readonly code: 'ERR_INVALID_TEMPLATE' | 'ERR_REQUIRED_VARIABLE'
  /** The variable a required-reference error is about. */
  readonly variable?: string

  constructor(message: string, code: InterpolationError['code'], variable?: string) {
    super(message)
    this.code = code
    this.variable = variable
  }
}

/** compose's warning for a plain reference to an unset variable. */
export function unsetVariableWarning(name: string): string {
  return `The "${name}" variable is not set. Defaulting to a blank string.`
}

const operators: ReferenceOperator[] = [':-', ':?', ':+', '-', '?', '+']

/**
 * How deep braces may nest inside one reference. Substitution recurses once per level and every
 * level rescans the rest of the word, so thousands of levels overflowed the stack (exit 1) and
 * cost time quadratic in the template; no real default nests more than a few.
 */
export const maxReferenceNesting = 100

interface ParsedBrace {
  reference: VariableReference
  /** Index just after the closing `}`. */
  end: number
}

function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 48 && code <= 57)
}

function nameEnd(text: string, start: number): number {
  let index = start
  while (index < text.length && isNameChar(text.charCodeAt(index))) index++
  return index
}

function invalidTemplate(template: string): InterpolationError {
  return new InterpolationError(`Invalid template: "${template}"`, 'ERR_INVALID_TEMPLATE')
}

function nestedTooDeep(): InterpolationError {
  return new InterpolationError(
    `Invalid template: references nested more than ${maxReferenceNesting} levels deep`,
    'ERR_INVALID_TEMPLATE',
  )
}

/** Parses the `${...}` that starts at `start` (the `$`), or throws Invalid template. */
function parseBrace(text: string, start: number, template: string): ParsedBrace {
  const nameStart = start + 2
  if (nameStart >= text.length || !isNameStart(text.charCodeAt(nameStart))) throw invalidTemplate(template)
  const afterName = nameEnd(text, nameStart)
  const name = text.slice(nameStart, afterName)
  if (text[afterName] === '}') {
    return { reference: { name, operator: '', word: '', required: false }, end: afterName + 1 }
  }
  const operator = operators.find((candidate) => text.startsWith(candidate, afterName))
  if (operator === undefined) throw invalidTemplate(template)
  const wordStart = afterName + operator.length
  let depth = 1
  let index = wordStart
  for (; index < text.length; index++) {
    const char = text[index]
    if (char === '{') {
      if (++depth > maxReferenceNesting) throw nestedTooDeep()
    } else if (char === '}' && --depth === 0) break
  }
  if (depth !== 0) throw invalidTemplate(template)
  const word = text.slice(wordStart, index)
  const required = operator === ':?' || operator === '?'
  return { reference: { name, operator, word, required }, end: index + 1 }
}

function resolveBrace(
  reference: VariableReference,
  lookup: Lookup,
  options: InterpolateOptions,
  whole: string,
): string {
  const value = lookup(reference.name)
  const { operator, word, name } = reference
  const usable = operator.startsWith(':') ? value !== undefined && value !== '' : value !== undefined
  switch (operator) {
    case '':
      if (value === undefined) options.onUnset?.(name)
      return value ?? ''
    case ':-':
    case '-':
      return usable ? (value as string) : substitute(word, lookup, options, whole)
    case ':?':
    case '?': {
      if (usable) return value as string
      const message = substitute(word, options.messageLookup ?? lookup, options, whole)
      const suffix = message === '' ? '' : `: ${message}`
      throw new InterpolationError(
        `required variable ${name} is missing a value${suffix}`,
        'ERR_REQUIRED_VARIABLE',
        name,
      )
    }
    case ':+':
    case '+':
      return usable ? substitute(word, lookup, options, whole) : ''
  }
}

/**
 * Substitutes every reference of `template` the way compose does and returns the result.
 * Throws an InterpolationError with compose's message for a malformed reference or a required
 * variable without a value. Words are evaluated only when used; substituted values are not rescanned.
 */
export function interpolate(template: string, lookup: Lookup, options: InterpolateOptions = {}): string {
  return substitute(template, lookup, options, template)
}

function substitute(template: string, lookup: Lookup, options: InterpolateOptions, whole: string): string {
  if (!template.includes('$')) return template
  let output = ''
  let index = 0
  while (index < template.length) {
    const dollar = template.indexOf('$', index)
    if (dollar === -1) {
      output += template.slice(index)
      break
    }
    output += template.slice(index, dollar)
    const next = template[dollar + 1]
    if (next === '$') {
      output += '$'
      index = dollar + 2
    } else if (next === '{') {
      const parsed = parseBrace(template, dollar, whole)
      output += resolveBrace(parsed.reference, lookup, options, whole)
      index = parsed.end
    } else if (next !== undefined && isNameStart(next.charCodeAt(0))) {
      const end = nameEnd(template, dollar + 1)
      const name = template.slice(dollar + 1, end)
      const value = lookup(name)
      if (value === undefined) options.onUnset?.(name)
      output += value ?? ''
      index = end
    } else {
      output += '$'
      index = dollar + 1
    }
  }
  return output
}

/**
 * Lists the references of a template, nested ones in words included, in order of appearance.
 * Throws Invalid template for a malformed reference, as `interpolate` would.
 */
export function scanReferences(template: string): VariableReference[] {
  const found: VariableReference[] = []
  collectReferences(template, found, template)
  return found
}

function collectReferences(template: string, found: VariableReference[], whole: string): void {
  let index = template.indexOf('$')
  while (index !== -1 && index < template.length) {
    const next = template[index + 1]
    if (next === '$') {
      index = template.indexOf('$', index + 2)
    } else if (next === '{') {
      const parsed = parseBrace(template, index, whole)
      found.push(parsed.reference)
      if (parsed.reference.word.includes('$')) collectReferences(parsed.reference.word, found, whole)
      index = template.indexOf('$', parsed.end)
    } else if (next !== undefined && isNameStart(next.charCodeAt(0))) {
      const end = nameEnd(template, index + 1)
      found.push({ name: template.slice(index + 1, end), operator: '', word: '', required: false })
      index = template.indexOf('$', end)
    } else {
      index = template.indexOf('$', index + 1)
    }
  }
}

/** True when compose would treat some `$` of `text` as a reference (so it must be written as `$$`). */
export function holdsReference(text: string): boolean {
  for (let index = text.indexOf('$'); index !== -1; index = text.indexOf('$', index + 1)) {
    const next = text[index + 1]
    if (next === '$') {
      index++
      continue
    }
    if (next === '{' || (next !== undefined && isNameStart(next.charCodeAt(0)))) return true
  }
  return false
}
