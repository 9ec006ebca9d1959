/**
 * The part of RE2's syntax that V8's linear-time engine can run with the same meaning (pure). A pattern
 * made only of ASCII literals, escaped punctuation, `.`, simple ASCII classes, `\d` `\w` `\D` `\W`, groups,
 * alternation, `^` `$` `\A` `\z` and quantifiers is turned into JavaScript source; whether a whole
 * ASCII string matches is then the same in both engines (membership does not depend on the engine or on
 * greediness). Anything else, or anything RE2 might refuse, gives undefined: the caller uses RE2 itself.
 * Being strict here only costs speed, never a different decision.
 */
import { VaultError } from '../errors.js'

/** Counted repetitions nested deeper than this product are left to RE2 (which refuses over 1000). */
const maxRepeatProduct = 1000
const maxSourceLength = 4096
const maxGroupDepth = 100

const literalChar = /[\x20-\x7e]/
const metaChar = /[\\^$.|?*+()[\]{}]/
const punctuation = /[!-/:-@[-`{-~]/
const classShorthand: Record<string, [string, boolean]> = {
  d: ['0-9', false],
  w: ['0-9A-Za-z_', false],
  D: ['0-9', true],
  W: ['0-9A-Za-z_', true],
}

const hex = (char: string) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`

/** A pattern outside the subset (internal: the caller then uses re2js). */
export class Unsupported extends VaultError {
  override name = 'Unsupported'
  override readonly code: string = 'ERR_RE2_SUBSET'
  constructor() {
    super('the pattern is outside the linear-time subset')
  }
}

interface Group {
  /** The largest product of counted repetitions inside (RE2's repeat-size rule). */
  product: number
}

/** Parses `[...]` from `start` (at `[`); returns the JS class and the index after `]`. */
function parseClass(pattern: string, start: number): [string, number] {
  let i = start + 1
  let negated = false
  if (pattern[i] === '^') {
    negated = true
    i++
  }
  const items: string[] = []
  let lastSingle: string | undefined
  let first = true
  while (i < pattern.length && (pattern[i] !== ']' || first)) {
    const char = pattern[i]!
    if (char === ']' || char === '[') throw new Unsupported()
    let single: string | undefined
    if (char === '\\') {
      const next = pattern[i + 1] ?? ''
      const shorthand = classShorthand[next]
      if (shorthand && !shorthand[1]) {
        items.push(shorthand[0])
        lastSingle = undefined
        i += 2
        first = false
        continue
      }
      if (!punctuation.test(next)) throw new Unsupported()
      single = next
      i += 2
    } else if (char === '-' && !first && pattern[i + 1] !== ']') {
      // a range: the character before and the one after
      if (lastSingle === undefined) throw new Unsupported()
      let high = pattern[i + 1] ?? ''
      let width = 2
      if (high === '\\') {
        high = pattern[i + 2] ?? ''
        if (!punctuation.test(high)) throw new Unsupported()
        width = 3
      } else if (!literalChar.test(high) || high === '[' || high === ']') throw new Unsupported()
      if (high < lastSingle) throw new Unsupported()
      items.push(`-${hex(high)}`)
      lastSingle = undefined
      i += width
      first = false
      continue
    } else {
      if (!literalChar.test(char)) throw new Unsupported()
      single = char
      i++
    }
    items.push(hex(single))
    lastSingle = single
    first = false
  }
  if (pattern[i] !== ']' || items.length === 0) throw new Unsupported()
  return [`[${negated ? '^' : ''}${items.join('')}]`, i + 1]
}

/** Reads `{n}`, `{n,}`, `{n,m}` at `start`; undefined when it is not one RE2 would take as a repeat. */
function parseCount(pattern: string, start: number): [number, number, number] | undefined {
  const match = /^\{(0|[1-9][0-9]{0,3})(?:(,)(0|[1-9][0-9]{0,3})?)?\}/.exec(pattern.slice(start))
  if (!match) return undefined
  const min = Number(match[1])
  const max = match[2] === undefined ? min : match[3] === undefined ? -1 : Number(match[3])
  if (min > 1000 || max > 1000 || (max !== -1 && max < min) || max === 0) throw new Unsupported()
  return [min, max, start + match[0].length]
}

/** A repetition written the JavaScript way (always greedy: the same strings match). */
function quantifierSource(min: number, max: number): string {
  if (max === -1) return min === 0 ? '*' : min === 1 ? '+' : `{${min},}`
  if (min === 0 && max === 1) return '?'
  return min === max ? `{${min}}` : `{${min},${max}}`
}

/**
 * The JavaScript source (for `new RegExp(source, 'l')`, without anchors) of an RE2 pattern inside the
 * subset, or undefined when the pattern is outside it.
 */
export function linearSubsetSource(pattern: string): string | undefined {
  if (pattern.length > maxSourceLength) return undefined
  try {
    return translate(pattern)
  } catch (error) {
    if (error instanceof Unsupported) return undefined
    throw error
  }
}

function translate(pattern: string): string {
  let out = ''
  const groups: Group[] = [{ product: 1 }]
  /** What a quantifier would apply to: its product, or undefined when nothing may be repeated. */
  let repeatable: number | undefined
  let afterQuantifier = false
  let i = 0
  const atom = (source: string, product = 1) => {
    out += source
    repeatable = product
    afterQuantifier = false
    const group = groups.at(-1)!
    group.product = Math.max(group.product, product)
  }
  while (i < pattern.length) {
    const char = pattern[i]!
    if (char === '*' || char === '+' || char === '?' || char === '{') {
      let min: number
      let max: number
      let next: number
      if (char === '{') {
        const count = parseCount(pattern, i)
        if (!count) throw new Unsupported()
        ;[min, max, next] = count
      } else {
        ;[min, max, next] = char === '+' ? [1, -1, i + 1] : char === '*' ? [0, -1, i + 1] : [0, 1, i + 1]
      }
      if (repeatable === undefined || afterQuantifier) throw new Unsupported()
      if (pattern[next] === '?') next++ // non-greedy: the same strings match
      const factor = char === '{' && (min >= 2 || max >= 2) ? (max === -1 ? min : max) : 1
      const product = repeatable * factor
      if (product > maxRepeatProduct) throw new Unsupported()
      const group = groups.at(-1)!
      group.product = Math.max(group.product, product)
      out += quantifierSource(min, max)
      afterQuantifier = true
      i = next
      continue
    }
    if (char === '(') {
      if (pattern.startsWith('(?:', i)) i += 3
      else if (pattern[i + 1] === '?') throw new Unsupported()
      else i += 1
      out += '(?:'
      groups.push({ product: 1 })
      if (groups.length > maxGroupDepth) throw new Unsupported()
      repeatable = undefined
      afterQuantifier = false
      continue
    }
    if (char === ')') {
      if (groups.length === 1) throw new Unsupported()
      const group = groups.pop()!
      i++
      atom(')', group.product)
      continue
    }
    if (char === '|') {
      out += '|'
      repeatable = undefined
      afterQuantifier = false
      i++
      continue
    }
    if (char === '^' || char === '$') {
      out += char
      repeatable = undefined
      afterQuantifier = false
      i++
      continue
    }
    if (char === '.') {
      atom('[^\\n]')
      i++
      continue
    }
    if (char === '[') {
      const [source, next] = parseClass(pattern, i)
      atom(source)
      i = next
      continue
    }
    if (char === '\\') {
      const next = pattern[i + 1] ?? ''
      i += 2
      if (next === 'A' || next === 'z') {
        out += next === 'A' ? '^' : '$'
        repeatable = undefined
        afterQuantifier = false
      } else if (classShorthand[next]) {
        const [set, negated] = classShorthand[next]
        atom(`[${negated ? '^' : ''}${set}]`)
      } else if (punctuation.test(next)) atom(hex(next))
      else throw new Unsupported()
      continue
    }
    if (!literalChar.test(char) || metaChar.test(char)) throw new Unsupported()
    atom(hex(char))
    i++
  }
  if (groups.length !== 1) throw new Unsupported()
  return out
}
