/**
 * The rule engine (pure): parses rule text (`METHODS PATTERN` per line, `#` and `!` comments) into
 * compiled rules, and decides a method and path with first-match-wins. Patterns are anchored as a whole,
 * `^(?:pattern)$`, so a top-level alternation cannot leave a branch half-anchored.
 */
import { canonicalizeTarget } from './canonical-path.js'
import { expandVariables, ruleVariables, UnknownVariableError } from './variables.js'

/** One compiled rule and where it came from. */
export interface Rule {
  methods: readonly string[]
  /** The pattern as written, variables unexpanded. */
  pattern: string
  regex: RegExp
  /** Where the rule was read: `PROXY_RULES`, a file name, `built-in`, `preset monitoring`. */
  source: string
  line: number
}

/** A rule line that cannot be used; the message names the source, the line number and the reason. */
export class RuleSyntaxError extends Error {
  override name = 'RuleSyntaxError'
  readonly code = 'ERR_PROXY_RULE'
  constructor(
    readonly source: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${source} line ${line}: ${reason}`)
  }
}

const methodList = /^[A-Z]+(?:,[A-Z]+)*$/
const inlineComment = /\s#.*$/

/**
 * Parses rule text into rules. Blank lines and lines starting with `#` or `!` are comments, as is
 * anything after a blank followed by `#`. Throws RuleSyntaxError for the first line that is not a
 * valid rule (bad method list, missing pattern, unknown `%VARIABLE%`, a regex that does not compile).
 */
export function parseRules(text: string, source = 'rules'): Rule[] {
  const rules: Rule[] = []
  const lines = text.split(/\r?\n/)
  for (const [index, rawLine] of lines.entries()) {
    const line = index + 1
    const content = rawLine.replace(inlineComment, '').trim()
    if (content === '' || content.startsWith('#') || content.startsWith('!')) continue
    const blank = content.search(/\s/)
    if (blank === -1) throw new RuleSyntaxError(source, line, `"${content}" has no pattern after the methods`)
    const methodText = content.slice(0, blank)
    const pattern = content.slice(blank).trim()
    if (!methodList.test(methodText)) {
      throw new RuleSyntaxError(
        source,
        line,
        `"${methodText}" is not a comma-separated list of upper-case HTTP methods`,
      )
    }
    rules.push({
      methods: methodText.split(','),
      pattern,
      regex: compilePattern(pattern, source, line),
      source,
      line,
    })
  }
  return rules
}

function compilePattern(pattern: string, source: string, line: number): RegExp {
  let expanded: string
  try {
    expanded = expandVariables(pattern, ruleVariables)
  } catch (error) {
    if (error instanceof UnknownVariableError) throw new RuleSyntaxError(source, line, error.message)
    throw error
  }
  try {
    return new RegExp(`^(?:${expanded})$`)
  } catch (error) {
    throw new RuleSyntaxError(source, line, `the pattern does not compile: ${(error as Error).message}`)
  }
}

/** The result of matching one request against the rules. */
export interface Decision {
  allowed: boolean
  /** The first rule that matched (the deciding rule), absent when none did. */
  rule?: Rule
}

/** First match wins: allowed when the first rule whose methods include `method` matches `path`. */
export function decide(rules: readonly Rule[], method: string, path: string): Decision {
  for (const rule of rules) {
    if (rule.methods.includes(method) && rule.regex.test(path)) return { allowed: true, rule }
  }
  return { allowed: false }
}

/** A decision on a raw request target, after the canonical-path step. */
export type TargetDecision =
  | (Decision & { valid: true; canonicalPath: string; forwardTarget: string })
  | { valid: false; allowed: false; reason: string }

/**
 * Decides a raw request target: canonicalizes it (decode once, clean, drop the query), then matches.
 * `OPTIONS *`, CONNECT and invalid targets are never allowed.
 */
export function decideTarget(rules: readonly Rule[], method: string, rawTarget: string): TargetDecision {
  if (method === 'CONNECT') return { valid: false, allowed: false, reason: 'CONNECT is never forwarded' }
  const target = canonicalizeTarget(rawTarget)
  if (target.kind === 'asterisk')
    return { valid: false, allowed: false, reason: 'the target "*" is never forwarded' }
  if (target.kind === 'invalid') return { valid: false, allowed: false, reason: target.reason }
  return {
    valid: true,
    ...decide(rules, method, target.path),
    canonicalPath: target.path,
    forwardTarget: target.forwardTarget,
  }
}

/** Rules written as text, one line, for messages: `GET,HEAD %API_PREFIX_PING% (built-in line 1)`. */
export function describeRule(rule: Rule): string {
  return `${rule.methods.join(',')} ${rule.pattern} (${rule.source} line ${rule.line})`
}
