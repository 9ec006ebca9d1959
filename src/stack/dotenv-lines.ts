/**
 * Line spans of a dotenv file's entries, read with compose's own parser (so a quoted multi-line value
 * is one span), and the rewrite `secrets import --move` makes: each moved entry becomes a comment
 * without its value plus a bare `NAME` line, which compose fills from its environment (where `vault
 * run` puts the vault's value), so `env_file` consumers of the file keep receiving it.
 */
import { readEnvFile } from '../compose/env-file.js'

export interface DotenvSpan {
  key: string
  /** First and last line (1-based, inclusive). */
  first: number
  last: number
  /** True for a bare `NAME` line (no value of its own). */
  bare: boolean
}

/** The span of every entry of `text` (the last span of a duplicated key wins, as compose's value does). */
export function dotenvSpans(text: string, file?: string): DotenvSpan[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const entries = readEnvFile(text, () => undefined, { file }).entries
  return entries.map((entry, index) => {
    const limit = (entries[index + 1]?.line ?? lines.length + 1) - 1
    const bare = entry.references.length === 1 && !/[=:]/.test(lines[entry.line - 1] ?? '')
    let last = entry.line
    const full = readEnvFile(lines.slice(entry.line - 1, limit).join('\n'), () => undefined).values[entry.key]
    for (; last < limit; last++) {
      const part = safeValue(lines.slice(entry.line - 1, last).join('\n'), entry.key)
      if (part === full) break
    }
    return { key: entry.key, first: entry.line, last, bare }
  })
}

function safeValue(text: string, key: string): string | undefined {
  try {
    return readEnvFile(text, () => undefined).values[key]
  } catch {
    return undefined
  }
}

/** `text` with each span of `moved` replaced by a comment naming where the value went and a bare `NAME`. */
export function moveLinesOut(text: string, moved: readonly string[], note: string, file?: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const spans = dotenvSpans(text, file).filter((span) => moved.includes(span.key) && !span.bare)
  for (const span of spans.sort((a, b) => b.first - a.first)) {
    lines.splice(span.first - 1, span.last - span.first + 1, `# ${span.key}: ${note}`, span.key)
  }
  return lines.join('\n')
}
