/**
 * Compose files nested deep, generated so the test (deep-and-encoding.test.ts) and the go-yaml oracle
 * (oracle/) read the same bytes. Shapes: go-yaml's own limit_test.go cases (a megabyte of `[`, of `{`,
 * of `- `), block mappings as deep as a file of 2 MB goes, both sides of vault's limit (256) and of
 * go-yaml's (10,000), and values that nest deeper than their text: flow pairs and aliases.
 */

/** One input: its name (the attack or the boundary it stands for) and its bytes. */
export interface InputCase {
  name: string
  bytes: Buffer
  /** What vault says: 'ok', or the end of its error message. */
  vault: string
  /** The 1-based line vault's error names, when it refuses. */
  line?: number
}

const web = 'services:\n  web:\n    image: nginx\n'
const mebibyte = 1024 * 1024
const tooDeep = 'invalid YAML: exceeded max depth of 256'

/** `x-deep:` holding block mappings `levels` deep (`x-deep` itself is level 1 below the top). */
export function blockMappings(levels: number, under = ''): string {
  const lines = [`${under}x-deep:`]
  let indent = `${under}  `
  for (let level = 1; level < levels; level++) {
    lines.push(`${indent}a:`)
    indent += ' '
  }
  return `${lines.join('\n')}\n${indent}x: 1\n`
}

/** `x-deep:` holding flow sequences `levels` deep. */
function flowSequences(levels: number): string {
  return `x-deep: ${'['.repeat(levels)}${']'.repeat(levels)}\n`
}

/** `x-deep:` holding block sequences `levels` deep, all on one line (`- - - x`). */
function blockSequences(levels: number): string {
  return `x-deep:\n  ${'- '.repeat(levels)}x\n`
}

/** Flow pairs, `[a: [a: ...]]`: each `[` holds a one-pair mapping, two levels of value per bracket. */
function flowPairs(brackets: number): string {
  return `x-deep: ${'[a: '.repeat(brackets)}1${']'.repeat(brackets)}\n`
}

/** `anchors` anchored flow sequences `levels` deep, each holding an alias to the one before. */
function nestedAliases(anchors: number, levels: number): string {
  let text = ''
  for (let index = 0; index < anchors; index++) {
    const inner = index === 0 ? '1' : `*a${index - 1}`
    text += `x-a${index}: &a${index} ${'['.repeat(levels)}${inner}${']'.repeat(levels)}\n`
  }
  return text
}

const text = (name: string, yaml: string, vault: string, line?: number): InputCase => ({
  name,
  bytes: Buffer.from(yaml),
  vault,
  line,
})

/**
 * The nesting cases. Depths count the top-level mapping as level 1, so `x-deep: [[]]` is 3 deep
 * (the top mapping, the outer and the inner sequence).
 */
export function depthCases(): InputCase[] {
  return [
    text('1 MiB of [ (go-yaml limit_test: deeply nested slices)', '['.repeat(mebibyte), tooDeep, 1),
    text(
      '1 MiB of { after x: (go-yaml limit_test: deeply nested maps)',
      `x: ${'{'.repeat(mebibyte)}`,
      tooDeep,
      1,
    ),
    text('1 MiB of - (go-yaml limit_test: deeply nested indents)', '- '.repeat(mebibyte / 2), tooDeep, 1),
    text('2,000 nested block mappings in a service', web + blockMappings(2000, '    '), tooDeep, 259),
    text(
      '1,200 nested block mappings (exit 1 before: a regex compiled at the end of the stack)',
      web + blockMappings(1200),
      tooDeep,
      261,
    ),
    text('10,001 flow sequences (past go-yaml too)', web + flowSequences(10_001), tooDeep, 4),
    text('10,000 flow sequences (go-yaml max_flow_level)', web + flowSequences(10_000), tooDeep, 4),
    text('flow sequences 257 deep', web + flowSequences(256), tooDeep, 4),
    text('flow sequences 256 deep', web + flowSequences(255), 'ok'),
    text('block mappings 257 deep', web + blockMappings(256), tooDeep, 260),
    text('block mappings 256 deep', web + blockMappings(255), 'ok'),
    text('block sequences 257 deep on one line', web + blockSequences(256), tooDeep, 5),
    text('block sequences 256 deep on one line', web + blockSequences(255), 'ok'),
    text('flow pairs 257 deep from 128 brackets', web + flowPairs(128), tooDeep, 4),
    text('flow pairs 255 deep from 127 brackets', web + flowPairs(127), 'ok'),
    text('5 aliases each nesting the last 60 deeper: 301 deep', web + nestedAliases(5, 60), tooDeep, 8),
    text('4 aliases each nesting the last 60 deeper: 241 deep', web + nestedAliases(4, 60), 'ok'),
    text('block mappings 50 deep', web + blockMappings(49), 'ok'),
  ]
}

/** Every case, in the order of go-yaml-verdicts-deep-and-encoding.jsonl. */
export function inputCases(): InputCase[] {
  return depthCases()
}
