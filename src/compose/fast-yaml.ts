/**
 * A fast reader for the block-style YAML subset compose files are written in (mappings, sequences,
 * plain and quoted one-line scalars, one-line flow collections, comments), with the line of every
 * path. Anything outside that subset (anchors, aliases, tags, block scalars, multi-line scalars,
 * duplicate keys, tabs, ...) throws `UnsupportedYaml` and the caller uses the full `yaml` parser,
 * so the result is always the one the full parser gives (a differential test checks this).
 */

import { UnsupportedYaml } from './fast-yaml-errors.js'
import { resolvePlain, unescapeDouble } from './fast-yaml-scalars.js'

export { UnsupportedYaml }

interface Line {
  indent: number
  text: string
  number: number
}

/** Where the reader is: the lines, the index of the next one, and the line of every path read. */
interface Reader {
  lines: Line[]
  index: number
  out: Map<string, number>
}

export interface FastYamlResult {
  value: unknown
  lines: Map<string, number>
}

const unsupported = (why: string): never => {
  throw new UnsupportedYaml(why)
}

/** Parses `text` or throws UnsupportedYaml. */
export function parseSimpleYaml(text: string): FastYamlResult {
  const lines = toLines(text)
  const lineOfPath = new Map<string, number>()
  if (lines.length === 0) return { value: null, lines: lineOfPath }
  const reader: Reader = { lines, index: 0, out: lineOfPath }
  const value = parseNode(reader, lines[0]!.indent, '')
  if (reader.index < lines.length) unsupported('trailing content')
  return { value, lines: lineOfPath }
}

function toLines(text: string): Line[] {
  const result: Line[] = []
  const raw = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n')
  for (let index = 0; index < raw.length; index++) {
    let line = raw[index]!
    if (line.endsWith('\r')) line = line.slice(0, -1)
    let indent = 0
    while (line.charCodeAt(indent) === 32) indent++
    const rest = line.slice(indent)
    if (rest === '' || rest.startsWith('#')) continue
    if (rest.startsWith('\t')) unsupported('tab indentation')
    if (result.length === 0 && rest.trimEnd() === '---') continue
    if (rest.startsWith('---') || rest.startsWith('...') || rest.startsWith('%'))
      unsupported('document markers')
    result.push({ indent, text: rest, number: index + 1 })
  }
  return result
}

/** Joins a path and a key the way compose names locations (`services.web.environment.KEY`). */
export function childPath(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`
}

function isSequenceItem(text: string): boolean {
  return text === '-' || text.startsWith('- ')
}

function parseNode(reader: Reader, indent: number, path: string): unknown {
  const line = reader.lines[reader.index]!
  if (line.indent !== indent) unsupported('unexpected indentation')
  if (isSequenceItem(line.text)) return parseSequence(reader, indent, path)
  return parseMapping(reader, indent, path)
}

function parseSequence(reader: Reader, indent: number, path: string): unknown[] {
  const items: unknown[] = []
  while (reader.index < reader.lines.length) {
    const line = reader.lines[reader.index]!
    if (line.indent < indent || (line.indent === indent && !isSequenceItem(line.text))) break
    if (line.indent > indent) unsupported('bad sequence')
    const itemPath = childPath(path, items.length)
    reader.out.set(itemPath, line.number)
    const content = line.text.slice(1).replace(/^ +/, '')
    const contentIndent = indent + (line.text.length - content.length)
    if (content === '' || content.startsWith('#')) {
      reader.index++
      items.push(parseNested(reader, indent, itemPath))
    } else if (isSequenceItem(content) || findMappingColon(content) !== -1) {
      reader.lines[reader.index] = { indent: contentIndent, text: content, number: line.number }
      items.push(parseNode(reader, contentIndent, itemPath))
    } else {
      reader.index++
      items.push(parseInlineValue(content))
      checkNoContinuation(reader, indent)
    }
  }
  return items
}

function parseNested(reader: Reader, parentIndent: number, path: string): unknown {
  const next = reader.lines[reader.index]
  if (!next || next.indent <= parentIndent) return null
  return parseNode(reader, next.indent, path)
}

function checkNoContinuation(reader: Reader, indent: number): void {
  const next = reader.lines[reader.index]
  if (next && next.indent > indent) unsupported('multi-line scalar')
}

/** The index of the `:` that ends a mapping key on this line, or -1. */
function findMappingColon(text: string): number {
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

function parseMapping(reader: Reader, indent: number, path: string): Record<string, unknown> {
  const mapping: Record<string, unknown> = {}
  while (reader.index < reader.lines.length) {
    const line = reader.lines[reader.index]!
    if (line.indent < indent) break
    if (line.indent > indent || isSequenceItem(line.text)) unsupported('bad mapping')
    const colon = findMappingColon(line.text)
    if (colon === -1) unsupported('not a mapping entry')
    const key = parseKey(line.text.slice(0, colon).trimEnd())
    if (Object.hasOwn(mapping, key) || key === '<<' || key === '__proto__')
      unsupported('duplicate or special key')
    const keyPath = childPath(path, key)
    reader.out.set(keyPath, line.number)
    const rest = line.text.slice(colon + 1).trim()
    reader.index++
    if (rest === '' || rest.startsWith('#')) {
      const next = reader.lines[reader.index]
      if (next && next.indent === indent && isSequenceItem(next.text)) {
        mapping[key] = parseSequence(reader, indent, keyPath)
      } else {
        mapping[key] = parseNested(reader, indent, keyPath)
      }
    } else {
      mapping[key] = parseInlineValue(rest)
      checkNoContinuation(reader, indent)
    }
  }
  return mapping
}

function parseKey(text: string): string {
  if (text === '' || text.startsWith('?') || /^[&*!|>%@`]/.test(text)) unsupported('complex key')
  if (text[0] === '"' || text[0] === "'") {
    const value = parseInlineValue(text)
    return String(value)
  }
  if (text.includes(' #')) unsupported('comment in key')
  const value = resolvePlain(text)
  return value === null ? unsupported('null key') : String(value)
}

function stripComment(text: string): string {
  if (!text.includes('#')) return text
  const comment = text.search(/\s#/)
  return (comment === -1 ? text : text.slice(0, comment)).trimEnd()
}

function parseInlineValue(text: string): unknown {
  const first = text[0]
  if (first === '"' || first === "'") {
    const close = closingQuote(text, 0)
    if (close === -1) unsupported('multi-line quoted scalar')
    const after = text.slice(close + 1).trim()
    if (after !== '' && !after.startsWith('#')) unsupported('text after a quoted scalar')
    const inner = text.slice(1, close)
    return first === "'" ? inner.replaceAll("''", "'") : unescapeDouble(inner)
  }
  if (first === '[' || first === '{') return parseFlow(stripComment(text))
  if (/^[&*!|>%@`]/.test(text)) unsupported('anchor, alias, tag or block scalar')
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
    if (Object.hasOwn(mapping, key)) unsupported('duplicate key')
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
  if (/^[&*!|>%@`]/.test(text) || text.includes(': ')) unsupported('flow scalar')
  return resolvePlain(text)
}
