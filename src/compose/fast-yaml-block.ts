/**
 * Block scalars (`|`, `>`, with `-`/`+` chomping) for the fast YAML reader, read from the raw lines
 * (blank lines and `#` are content there). Explicit indentation indicators and folded text with
 * more-indented lines are left to the full parser.
 */
import { UnsupportedYaml } from './fast-yaml-errors.js'

const headerPattern = /^([|>])([+-]?)[ \t]*(?:#.*)?$/

const unsupported = (why: string): never => {
  throw new UnsupportedYaml(why)
}

function indentOf(line: string): number {
  let indent = 0
  while (line.charCodeAt(indent) === 32) indent++
  return indent
}

function fold(lines: string[]): string {
  let text = ''
  let breaks = 0
  for (const line of lines) {
    if (line === '') {
      breaks++
      continue
    }
    if (line.startsWith(' ') || line.startsWith('\t')) unsupported('more-indented folded line')
    text += text === '' ? '\n'.repeat(breaks) : breaks > 0 ? '\n'.repeat(breaks) : ' '
    text += line
    breaks = 0
  }
  return text
}

/**
 * The block scalar whose header (`|`, `>-`, ...) ends raw line `headerLine` (1-based), indented
 * deeper than `parentIndent`: its value and the number of its last content line.
 */
export function readBlockScalar(
  raw: readonly string[],
  header: string,
  position: { headerLine: number; parentIndent: number },
): { value: string; lastLine: number } {
  const match = headerPattern.exec(header) ?? unsupported('block scalar header')
  const body: string[] = []
  let contentIndent = -1
  let lastLine = position.headerLine
  const end = raw.length - (raw[raw.length - 1] === '' ? 1 : 0)
  for (let index = position.headerLine; index < end; index++) {
    const line = raw[index]!.replace(/\r$/, '')
    if (line.trim() === '') {
      // before the first content line, YAML refuses spaces past the content's indent: leave those to it
      if (line.length > (contentIndent === -1 ? 0 : contentIndent)) unsupported('blank line with spaces')
      body.push('')
      continue
    }
    const indent = indentOf(line)
    if (contentIndent === -1) {
      if (indent <= position.parentIndent) break
      contentIndent = indent
    } else if (indent < contentIndent) break
    body.push(line.slice(contentIndent))
    lastLine = index + 1
  }
  if (contentIndent === -1 && match[2] === '+') unsupported('empty kept block scalar')
  const count = lastLine - position.headerLine
  const content = body.slice(0, count)
  const trailing = body.length - count
  const core = match[1] === '|' ? content.join('\n') : fold(content)
  const chomping = match[2]
  const value =
    chomping === '-'
      ? core
      : chomping === '+'
        ? `${core}\n${'\n'.repeat(trailing)}`
        : core === ''
          ? ''
          : `${core}\n`
  return { value, lastLine }
}
