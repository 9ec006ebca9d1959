/**
 * One-line values of the fast YAML reader: plain, quoted and flow scalars, one-line flow collections,
 * mapping keys and where a key ends. Anything else throws `UnsupportedYaml`.
 */
import { UnsupportedYaml } from './fast-yaml-errors.js'
import { resolvePlain, unescapeDouble } from './fast-yaml-scalars.js'

const unsupported = (why: string): never => {
  throw new UnsupportedYaml(why)
}

/** The index of the `:` that ends a mapping key on this line, or -1. */
export function findMappingColon(text: string): number {
  const first = text[0]
  if (first === '"' || first === "'") {
    const close = closingQuote(text, 0)
    if (close === -1) return -1
    const after = text.slice(close + 1).trimStart()
    return after.startsWith(':') && (after.length === 1 || after[1] === ' ')
      ? text.indexOf(':', close + 1)
      : -1
  }
  if (first === '[' || first === '{') return -1
  for (let index = text.indexOf(':'); index !== -1; index = text.indexOf(':', index + 1)) {
    const next = text[index + 1]
    if (next === undefined || next === ' ') return index
  }
  return -1
}

function closingQuote(text: string, start: number): number {
  const quote = text[start]
  for (let index = start + 1; index < text.length; index++) {
    const char = text[index]
    if (quote === '"' && char === '\\') index++
    else if (char === quote) {
      if (quote === "'" && text[index + 1] === "'") index++
      else return index
    }
  }
  return -1
}

/** A mapping key (plain or quoted) as the string the full parser gives. */
export function parseKey(text: string): string {
  if (text === '' || text.startsWith('?') || /^[&*!|>%@`[\]{},]/.test(text)) unsupported('complex key')
  // at a line's start `---`/`...` mark a document (toLines refuses such lines; a key alone is refused too)
  if (text.startsWith('---') || text.startsWith('...')) unsupported('document marker')
  if (text[0] === '"' || text[0] === "'") {
    const value = parseInlineValue(text)
    return String(value)
  }
  if (text.includes(' #')) unsupported('comment in key')
  const value = resolvePlain(text)
  return value === null ? unsupported('null key') : String(value)
}

/** `text` without a trailing ` # comment`, quoted scalars skipped (`"a # b", # c` keeps `"a # b",`). */
export function stripFlowComment(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const char = text[index]
    if (char === '"' || char === "'") {
      const end = closingQuote(text, index)
      if (end === -1) return text
      index = end
    } else if (char === '#' && (index === 0 || text[index - 1] === ' ')) {
      return text.slice(0, index).trimEnd()
    }
  }
  return text.trimEnd()
}

/** `text` without a trailing ` # comment` (refuses rather than strips a `#` inside quotes). */
export function stripComment(text: string): string {
  if (!text.includes('#')) return text
  const comment = text.search(/\s#/)
  return (comment === -1 ? text : text.slice(0, comment)).trimEnd()
}

/** A one-line value: a quoted or plain scalar or a one-line flow collection, comment stripped. */
export function parseInlineValue(text: string): unknown {
  const first = text[0]
  if (first === '"' || first === "'") {
    const close = closingQuote(text, 0)
    if (close === -1) unsupported('multi-line quoted scalar')
    const after = text.slice(close + 1)
    // a comment needs a space before its `#`: `"a"#b` is not YAML
    if (after.trim() !== '' && !/^\s+#/.test(after)) unsupported('text after a quoted scalar')
    const inner = text.slice(1, close)
    return first === "'" ? inner.replaceAll("''", "'") : unescapeDouble(inner)
  }
  if (first === '[' || first === '{') return parseFlow(stripComment(text))
  if (/^[&*!|>%@`\]},]/.test(text)) unsupported('anchor, alias, tag, block scalar or flow indicator')
  if (/^[?:-](\s|$)/.test(text)) unsupported('indicator')
  const plain = stripComment(text).trimEnd()
  if (plain.includes(': ') || plain.endsWith(':') || plain.startsWith('- '))
    unsupported('ambiguous plain scalar')
  return resolvePlain(plain)
}

function parseFlow(text: string): unknown {
  const open = text[0]
  const close = open === '[' ? ']' : '}'
  if (!text.endsWith(close)) unsupported('multi-line flow collection')
  const body = text.slice(1, -1).trim()
  const parts = body === '' ? [] : splitFlow(body)
  if (open === '[') return parts.map(parseFlowScalar)
  const mapping: Record<string, unknown> = {}
  for (const part of parts) {
    const colon = findMappingColon(part)
    if (colon === -1) unsupported('flow mapping entry')
    const key = parseKey(part.slice(0, colon).trim())
    if (Object.hasOwn(mapping, key) || key === '__proto__') unsupported('duplicate or special key')
    mapping[key] = parseFlowScalar(part.slice(colon + 1).trim())
  }
  return mapping
}

function splitFlow(body: string): string[] {
  const parts: string[] = []
  let start = 0
  for (let index = 0; index < body.length; index++) {
    const char = body[index]
    if (char === '"' || char === "'") {
      const end = closingQuote(body, index)
      if (end === -1) unsupported('unterminated quote')
      index = end
    } else if (char === '[' || char === ']' || char === '{' || char === '}' || char === '#') {
      unsupported('nested flow collection')
    } else if (char === ',') {
      parts.push(body.slice(start, index).trim())
      start = index + 1
    }
  }
  const last = body.slice(start).trim()
  if (last !== '') parts.push(last)
  if (parts.some((part) => part === '')) unsupported('empty flow entry')
  return parts
}

function parseFlowScalar(text: string): unknown {
  if (text === '') return null
  if (text[0] === '"' || text[0] === "'") return parseInlineValue(text)
  // `: ` or a trailing `:` makes a flow entry a pair, and `? `, `: `, `- ` at its start are indicators
  if (/^[&*!|>%@`]/.test(text) || text.includes(': ') || text.endsWith(':') || /^[?:-](\s|$)/.test(text))
    unsupported('flow scalar')
  return resolvePlain(text)
}
