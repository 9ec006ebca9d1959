/**
 * A fast reader for the block-style YAML subset compose files are written in (mappings, sequences,
 * plain and quoted one-line scalars, one-line flow collections (also on the line below their key),
 * comments), with the line of every path, and block-level anchors, aliases and `<<` merge keys (`fast-yaml-anchors.ts`). Anything
 * outside that subset (tags, block scalars, multi-line scalars, duplicate keys, tabs, ...) throws
 * `UnsupportedYaml` and the caller uses the full `yaml` parser,
 * so the result is always the one the full parser gives (a differential test checks this).
 */

import { UnsupportedYaml } from './fast-yaml-errors.js'
import {
  buildMapping,
  isAlias,
  mergeSources,
  resolveAlias,
  splitAnchor,
  type MappingEntry,
} from './fast-yaml-anchors.js'
import { readBlockScalar } from './fast-yaml-block.js'
import { maxNestingDepth } from './nesting-depth.js'
import {
  findMappingColon,
  parseInlineValue,
  parseKey,
  stripComment,
  stripFlowComment,
} from './fast-yaml-inline.js'

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
  /** The values of the anchors read so far (`&name`). */
  anchors: Map<string, unknown>
  /** The text's lines as written (block scalars are read from them). */
  raw: string[]
  /** How many block collections are open (nesting-depth.ts: past the limit, the full parser reports). */
  depth: number
  deepest: number
}

export interface FastYamlResult {
  value: unknown
  lines: Map<string, number>
  /** The deepest nesting of block collections (a one-line flow collection adds one level). */
  blockDepth: number
}

const unsupported = (why: string): never => {
  throw new UnsupportedYaml(why)
}

/** Parses `text` or throws UnsupportedYaml. */
export function parseSimpleYaml(text: string): FastYamlResult {
  const raw = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n')
  const lines = toLines(raw)
  const lineOfPath = new Map<string, number>()
  if (lines.length === 0) return { value: null, lines: lineOfPath, blockDepth: 0 }
  const reader: Reader = { lines, index: 0, out: lineOfPath, anchors: new Map(), raw, depth: 0, deepest: 0 }
  let value: unknown
  try {
    value = parseNode(reader, lines[0]!.indent, '')
  } catch (error) {
    // nesting deeper than the stack (`- - - ...` a million times) is the full parser's to report
    if (error instanceof RangeError) unsupported('nesting too deep')
    throw error
  }
  if (reader.index < lines.length) unsupported('trailing content')
  return { value, lines: lineOfPath, blockDepth: reader.deepest }
}

function toLines(raw: readonly string[]): Line[] {
  const result: Line[] = []
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

/** Opens one more block collection; past `maxNestingDepth` the full parser gives the error. */
function enter(reader: Reader): void {
  if (++reader.depth > maxNestingDepth) unsupported('nesting too deep')
  if (reader.depth > reader.deepest) reader.deepest = reader.depth
}

function parseSequence(reader: Reader, indent: number, path: string): unknown[] {
  enter(reader)
  const items: unknown[] = []
  while (reader.index < reader.lines.length) {
    const line = reader.lines[reader.index]!
    if (line.indent < indent || (line.indent === indent && !isSequenceItem(line.text))) break
    if (line.indent > indent) unsupported('bad sequence')
    const itemPath = childPath(path, items.length)
    reader.out.set(itemPath, line.number)
    const content = line.text.slice(1).replace(/^ +/, '')
    const contentIndent = indent + (line.text.length - content.length)
    if (content === '' || /^[#&*|>]/.test(content)) {
      reader.index++
      items.push(parseValue(reader, content, indent, () => parseNested(reader, indent, itemPath)))
    } else if (isSequenceItem(content) || findMappingColon(content) !== -1) {
      reader.lines[reader.index] = { indent: contentIndent, text: content, number: line.number }
      items.push(parseNode(reader, contentIndent, itemPath))
    } else {
      reader.index++
      items.push(parseLineValue(reader, content, indent))
    }
  }
  reader.depth--
  return items
}

/**
 * The block below a key or `-` with no value on its own line: a mapping, a sequence, or a one-line
 * flow collection on the next line (`command:` then `  ["postgres"]`, as sentry's compose file has).
 */
function parseNested(reader: Reader, parentIndent: number, path: string): unknown {
  const next = reader.lines[reader.index]
  if (!next || next.indent <= parentIndent) return null
  if (next.text.startsWith('[') || next.text.startsWith('{')) {
    reader.index++
    const value = parseInlineValue(next.text)
    checkNoContinuation(reader, parentIndent)
    return value
  }
  return parseNode(reader, next.indent, path)
}

function checkNoContinuation(reader: Reader, indent: number): void {
  const next = reader.lines[reader.index]
  if (next && next.indent > indent) unsupported('multi-line scalar')
}

function parseMapping(reader: Reader, indent: number, path: string): Record<string, unknown> {
  enter(reader)
  const entries: MappingEntry[] = []
  const keys = new Set<string>()
  let merges = 0
  while (reader.index < reader.lines.length) {
    const line = reader.lines[reader.index]!
    if (line.indent < indent) break
    if (line.indent > indent || isSequenceItem(line.text)) unsupported('bad mapping')
    const colon = findMappingColon(line.text)
    if (colon === -1) unsupported('not a mapping entry')
    const rawKey = line.text.slice(0, colon).trimEnd()
    const rest = line.text.slice(colon + 1).trim()
    reader.index++
    if (rawKey === '<<' && merges++ === 0) {
      entries.push({ merge: mergeSources(reader.anchors, rest) })
      checkNoContinuation(reader, indent)
      continue
    }
    const key = parseKey(rawKey)
    if (keys.has(key) || key === '<<' || key === '__proto__') unsupported('duplicate or special key')
    keys.add(key)
    const keyPath = childPath(path, key)
    reader.out.set(keyPath, line.number)
    const nested = () => {
      const next = reader.lines[reader.index]
      return next && next.indent === indent && isSequenceItem(next.text)
        ? parseSequence(reader, indent, keyPath)
        : parseNested(reader, indent, keyPath)
    }
    entries.push({ key, value: parseValue(reader, rest, indent, nested) })
  }
  reader.depth--
  return buildMapping(entries)
}

/** A block scalar whose header is on the line just read; the reader moves past its content. */
function parseBlockScalar(reader: Reader, header: string, indent: number): string {
  const headerLine = reader.lines[reader.index - 1]!.number
  const block = readBlockScalar(reader.raw, header, { headerLine, parentIndent: indent })
  while (reader.index < reader.lines.length && reader.lines[reader.index]!.number <= block.lastLine)
    reader.index++
  return block.value
}

/**
 * The value after `key:` or `- `: a block below (`nested`), an alias, or a one-line scalar or flow
 * collection (or one whose entries follow line by line); `&name` before any of them records it as an
 * anchor.
 */
function parseValue(reader: Reader, text: string, indent: number, nested: () => unknown): unknown {
  let rest = text
  let anchor: string | undefined
  if (rest.startsWith('&')) ({ name: anchor, rest } = splitAnchor(rest))
  let value: unknown
  if (rest === '' || rest.startsWith('#')) value = nested()
  else if (rest.startsWith('|') || rest.startsWith('>')) value = parseBlockScalar(reader, rest, indent)
  else if (isAlias(rest)) {
    value = resolveAlias(reader.anchors, rest)
    checkNoContinuation(reader, indent)
  } else value = parseLineValue(reader, rest, indent)
  if (anchor !== undefined) reader.anchors.set(anchor, value)
  return value
}

/** A value written on its key's line: one-line, or a flow collection whose `[` or `{` ends the line. */
function parseLineValue(reader: Reader, text: string, indent: number): unknown {
  const open = stripComment(text)
  const value =
    open === '[' || open === '{' ? parseMultiLineFlow(reader, open, indent) : parseInlineValue(text)
  checkNoContinuation(reader, indent)
  return value
}

/**
 * A flow collection with one complete entry per line and its closing bracket on a line of its own
 * (sentry's healthchecks: `test: [`, `"CMD-SHELL",`, comments, `"wget ..."`, `]`). Entries below the
 * key, a comma after every entry but the last; anything else (entries sharing or spanning lines, a
 * scalar folded over lines) is left to the full parser.
 */
function parseMultiLineFlow(reader: Reader, open: '[' | '{', indent: number): unknown {
  const close = open === '[' ? ']' : '}'
  const entries: string[] = []
  for (;;) {
    const line = reader.lines[reader.index]
    if (!line || line.indent < indent) unsupported('multi-line flow collection')
    reader.index++
    const text = stripFlowComment(line!.text)
    if (text === close) break
    if (line!.indent <= indent) unsupported('multi-line flow collection')
    entries.push(text)
  }
  const items = entries.map((entry, index) => {
    const item = entry.endsWith(',') ? entry.slice(0, -1).trimEnd() : entry
    if (item === '' || (item === entry && index < entries.length - 1)) unsupported('flow entry lines')
    parseInlineValue(`${open}${item}${close}`)
    return item
  })
  return parseInlineValue(`${open}${items.join(', ')}${close}`)
}
