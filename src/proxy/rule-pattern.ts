/**
 * A rule pattern compiled by RE2 itself (re2js, a JavaScript port of the RE2 engine that Go's regexp
 * and so CetusGuard use): every RE2 construct a CetusGuard rule file may hold (`\x{1F433}`,
 * `(?P<name>...)`, `\A`, `\z`, `[[:alpha:]]`, `(?i)` and the other flags, `\Q...\E`, `\pL`) means here
 * what it means there, nothing is translated, and matching takes linear time, so no path a client
 * sends can make a rule backtrack for long.
 */
import { RE2JS } from 're2js'

/** A compiled pattern: `test` is true when the whole path matches. */
export interface RulePattern {
  test(path: string): boolean
}

/** Why a pattern is not a valid RE2 expression, in RE2's words. */
export class PatternSyntaxError extends Error {
  override name = 'PatternSyntaxError'
}

function compile(source: string): RE2JS {
  try {
    return RE2JS.compile(source)
  } catch (error) {
    const message = (error as Error).message.replace(/^error parsing regexp: /, '')
    throw new PatternSyntaxError(message)
  }
}

function compiles(source: string): boolean {
  try {
    RE2JS.compile(source)
    return true
  } catch {
    return false
  }
}

/**
 * Compiles an expanded pattern (variables already replaced). The pattern must be a complete expression
 * on its own, so `/a)|(.*` cannot close the anchoring group; a `\Q` left open is refused (in
 * CetusGuard it would swallow the `$` anchor). Then it is anchored as a whole, `^(?:pattern)$`.
 * Throws PatternSyntaxError with RE2's message.
 */
export function compileRulePattern(expandedPattern: string): RulePattern {
  compile(expandedPattern)
  // A complete expression followed by ")" only compiles when the ")" is quoted text: an open \Q.
  if (compiles(`${expandedPattern})`))
    throw new PatternSyntaxError('\\Q without \\E: close the quoted text with \\E')
  const anchored = compile(`^(?:${expandedPattern})$`)
  return { test: (path) => anchored.test(path) }
}
