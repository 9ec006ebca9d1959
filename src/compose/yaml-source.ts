/**
 * Reading one compose file: the YAML parsed to plain values (anchors, aliases and `<<` merge keys
 * resolved) plus the line of every node by its path, so later stages can say `file:line`.
 */
import type { LineCounter as LineCounterType, Node } from 'yaml'
import { checkAliasExpansion } from './alias-expansion.js'
import { ComposeInputError } from './errors.js'
import { yamlModule } from '../text/yaml-module.js'
import { childPath, parseSimpleYaml, UnsupportedYaml } from './fast-yaml.js'
import { legacyOctal, parseLegacyOctal } from './fast-yaml-scalars.js'
import { maxNestingDepth, nestingTooDeep, pathPastDepth } from './nesting-depth.js'
import { NestingTooDeep, parseDocumentWithinDepth } from './yaml-document.js'

/** A parsed compose file: its values and the 1-based line of each path (`services.web.image`). */
export interface YamlSource {
  file: string
  value: Record<string, unknown>
  lines: Map<string, number>
}

/** The line of `path`, or of its nearest ancestor that has one. */
export function lineOf(lines: Map<string, number>, path: string): number | undefined {
  let current = path
  for (;;) {
    const line = lines.get(current)
    if (line !== undefined) return line
    const dot = current.lastIndexOf('.')
    if (dot === -1) return undefined
    current = current.slice(0, dot)
  }
}

/** Parses compose YAML text; malformed YAML throws one ComposeInputError with file and line. */
export function parseComposeYaml(text: string, file: string): YamlSource {
  let fast: ReturnType<typeof parseSimpleYaml> | undefined
  try {
    fast = parseSimpleYaml(text)
  } catch (error) {
    if (!(error instanceof UnsupportedYaml)) throw error
  }
  if (fast === undefined) return parseWithFullParser(text, file)
  const value = fast.value ?? {}
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ComposeInputError(file, 1, 'a compose file must be a mapping at the top level')
  }
  const source = { file, value: value as Record<string, unknown>, lines: fast.lines }
  checkNesting(text, source, fast.blockDepth >= maxNestingDepth)
  return source
}

/**
 * vault's limit on nesting (nesting-depth.ts), on the value: the parse stopped any text far past it,
 * but aliases (and the full parser's flow pairs, `[a: [a: ...]]`) nest deeper than the text does;
 * the fast parser's text within the limit (`nearLimit` false) has no other way past it. Then compose's
 * limit on alias expansion (alias-expansion.ts); a text without `*` has no alias to expand or nest.
 */
function checkNesting(text: string, { file, value, lines }: YamlSource, nearLimit: boolean): void {
  const aliases = text.includes('*')
  const tooDeep = aliases || nearLimit ? pathPastDepth(value) : undefined
  if (tooDeep) throw nestingTooDeep(file, lineOf(lines, tooDeep.reduce<string>(childPath, '')))
  if (aliases) checkAliasExpansion(value, file)
}

/** `0440` as the octal integer 288, as compose-go's YAML reader (go-yaml) resolves it. */
const legacyOctalTag = {
  identify: (value: unknown) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:int',
  format: 'OCT',
  test: legacyOctal,
  resolve: parseLegacyOctal,
}

/** The full parser: anchors, aliases, `<<` merge keys, block scalars and exact error positions. */
export function parseWithFullParser(text: string, file: string): YamlSource {
  const { LineCounter } = yamlModule()
  const lineCounter = new LineCounter()
  const document = parseWithinDepth(text, file, lineCounter)
  const problem = document.errors[0]
  if (problem) {
    const line = problem.linePos?.[0]?.line ?? lineCounter.linePos(problem.pos[0]).line
    throw new ComposeInputError(file, line, `invalid YAML: ${problem.message.split('\n')[0]}`)
  }
  // aliases give the anchored value itself, so building the value is linear; its expansion is
  // checked by compose's own rule (alias-expansion.ts) instead of the package's use count
  const value: unknown = document.toJS({ maxAliasCount: -1 }) ?? {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ComposeInputError(file, 1, 'a compose file must be a mapping at the top level')
  }
  const lines = new Map<string, number>()
  if (document.contents) recordLines(document.contents, '', lines, lineCounter)
  const source = { file, value: value as Record<string, unknown>, lines }
  checkNesting(text, source, true)
  return source
}

/** The document of `text`, or vault's error for nesting deeper than `maxNestingDepth`. */
function parseWithinDepth(text: string, file: string, lineCounter: LineCounterType) {
  try {
    return parseDocumentWithinDepth(
      text,
      {
        merge: true,
        prettyErrors: false,
        customTags: (tags) => [legacyOctalTag, ...(tags as object[])] as typeof tags,
      },
      lineCounter,
      maxNestingDepth,
    )
  } catch (error) {
    if (!(error instanceof NestingTooDeep)) throw error
    throw nestingTooDeep(file, lineCounter.linePos(error.offset).line)
  }
}

function recordLines(node: Node, path: string, lines: Map<string, number>, counter: LineCounterType): void {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yamlModule()
  if (isAlias(node)) return
  if (node.range && !lines.has(path)) lines.set(path, counter.linePos(node.range[0]).line)
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue
      const keyPath = childPath(path, String(pair.key.value))
      const keyRange = pair.key.range
      if (keyRange) lines.set(keyPath, counter.linePos(keyRange[0]).line)
      if (pair.value && !isScalar(pair.value)) recordLines(pair.value as Node, keyPath, lines, counter)
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => {
      if (item) recordLines(item as Node, childPath(path, index), lines, counter)
    })
  }
}
