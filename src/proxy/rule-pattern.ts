/**
 * A rule pattern as RE2 (the engine of Go's regexp, so of CetusGuard) reads it: every RE2 construct a
 * CetusGuard rule file may hold (`\x{1F433}`, `(?P<name>...)`, `\A`, `\z`, `[[:alpha:]]`, `(?i)` and the
 * other flags, `\Q...\E`, `\pL`) means here what it means there, and matching takes linear time, so no
 * path a client sends can make a rule backtrack. Two engines, one meaning:
 * - a pattern inside the subset of re2-subset.ts runs, for ASCII paths, on V8's own engine (native
 *   code, no memory of its own), with V8's fallback to its linear-time engine after 50,000 backtracks
 *   (only patterns that engine can run are taken, so the fallback is always there);
 * - anything else, and non-ASCII paths, run on re2js (a port of RE2), loaded only when first needed.
 */
import { createRequire } from 'node:module'
import type { RE2JS } from 're2js'
import { linearSubsetSource } from './re2-subset.js'
import { ensureRegexpFlags } from './regexp-flags.js'
import { UsageError } from '../errors.js'

/** A compiled pattern: `test` is true when the whole path matches. */
export interface RulePattern {
  test(path: string): boolean
  /** Which engine serves ASCII paths (for tests and `--log-level 7`). */
  readonly engine: 'v8' | 're2'
}

/** Why a pattern is not a valid RE2 expression, in RE2's words. */
export class PatternSyntaxError extends UsageError {
  override name = 'PatternSyntaxError'
  override readonly code: string = 'ERR_PROXY_PATTERN'
}

ensureRegexpFlags()

const require = createRequire(import.meta.url)
let re2js: typeof RE2JS | undefined

/** re2js, loaded at its first use (RSS most rule sets never need: docs/proxy-performance.md). */
function loadRe2(): typeof RE2JS {
  re2js ??= (require('re2js') as { RE2JS: typeof RE2JS }).RE2JS
  return re2js
}

function compileRe2(source: string): RE2JS {
  try {
    return loadRe2().compile(source)
  } catch (error) {
    const message = (error as Error).message.replace(/^error parsing regexp: /, '')
    throw new PatternSyntaxError(message)
  }
}

function compiles(source: string): boolean {
  try {
    loadRe2().compile(source)
    return true
  } catch {
    return false
  }
}

/** The pattern on V8's engine, when V8's linear-time engine can also run it (the fallback). */
function v8RegExp(source: string): RegExp | undefined {
  const anchored = `^(?:${source})$`
  try {
    // eslint-disable-next-line no-invalid-regexp -- V8's linear-time flag, enabled above
    new RegExp(anchored, 'l')
  } catch {
    return undefined
  }
  return new RegExp(anchored)
}

// eslint-disable-next-line no-control-regex -- every ASCII character, control characters included
const ascii = /^[\x00-\x7f]*$/
let lastPath = ''
let lastPathIsAscii = true

/** Whether a path is ASCII (remembered for the last path: every rule of a decision asks about it). */
function isAscii(path: string): boolean {
  if (path !== lastPath) {
    lastPath = path
    lastPathIsAscii = ascii.test(path)
  }
  return lastPathIsAscii
}

/**
 * Compiles an expanded pattern (variables already replaced). The pattern must be a complete expression
 * on its own, so `/a)|(.*` cannot close the anchoring group; a `\Q` left open is refused (in
 * CetusGuard it would swallow the `$` anchor). It is anchored as a whole, `^(?:pattern)$`. Throws
 * PatternSyntaxError with RE2's message.
 */
export function compileRulePattern(expandedPattern: string): RulePattern {
  const subset = linearSubsetSource(expandedPattern)
  const fast = subset === undefined ? undefined : v8RegExp(subset)
  let anchoredRe2: RE2JS | undefined
  const re2 = () => (anchoredRe2 ??= compileRe2(`^(?:${expandedPattern})$`))
  if (fast) {
    return { engine: 'v8', test: (path) => (isAscii(path) ? fast.test(path) : re2().test(path)) }
  }
  compileRe2(expandedPattern)
  // A complete expression followed by ")" only compiles when the ")" is quoted text: an open \Q.
  if (compiles(`${expandedPattern})`))
    throw new PatternSyntaxError('\\Q without \\E: close the quoted text with \\E')
  const anchored = re2()
  return { engine: 're2', test: (path) => anchored.test(path) }
}
