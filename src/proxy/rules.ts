/**
 * The rule engine (pure): parses rule text into compiled rules, and decides a method and path with
 * first-match-wins. The line syntax is CetusGuard's (SOURCE: hectorm/cetusguard cetusguard/rule.go,
 * `ruleLineRegex`, `commentLineRegex`): `METHODS PATTERN`, blanks and tabs only, `!` comment lines;
 * patterns are RE2 (rule-pattern.ts). vault also reads `#` comment lines, and `#` after a blank on a
 * section or directive line; on a rule line CetusGuard reads ` #...` as part of the pattern, so vault
 * refuses such a line rather than read a different pattern than CetusGuard would. It anchors each pattern as a whole, `^(?:pattern)$`, where CetusGuard writes
 * `^pattern$` (so a top-level alternation cannot leave a branch half-anchored).
 */
import { UsageError } from '../errors.js'
import { canonicalizeTarget } from './canonical-path.js'
import { compileRulePattern, PatternSyntaxError, type RulePattern } from './rule-pattern.js'
import { expandVariables, UnknownVariableError } from './variables.js'

/** One compiled rule and where it came from. */
export interface Rule {
  methods: readonly string[]
  /** The pattern as written, variables unexpanded. */
  pattern: string
  regex: RulePattern
  /** Where the rule was read: `PROXY_RULES`, a file name, `built-in`, `preset monitoring`. */
  source: string
  line: number
}

/** A rule line that cannot be used; the message names the source, the line number and the reason. */
export class RuleSyntaxError extends UsageError {
  override name = 'RuleSyntaxError'
  override readonly code: string = 'ERR_PROXY_RULE'
  constructor(
    readonly source: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${source} line ${line}: ${reason}`)
  }
}

const ruleLine = /^[\t ]*([A-Z]+(?:,[A-Z]+)*)[\t ]+([^\n]+?)[\t ]*$/
const commentLine = /^[\t ]*(?:[!#][^\n]*)?$/
const inlineComment = /[\t ]#[^\n]*$/
const lineBreak = /\r?\n/

/** Splits rule text into lines as CetusGuard does (LF or CRLF). */
export function ruleTextLines(text: string): string[] {
  return text.split(lineBreak)
}

/** A section or directive line without its trailing `#` comment (a `#` after a blank; vault's addition). */
export function withoutComment(rawLine: string): string {
  return rawLine.replace(inlineComment, '')
}

/** True for a blank line or a comment line (`!` as in CetusGuard, `#` as a vault addition). */
export function isCommentLine(rawLine: string): boolean {
  return commentLine.test(rawLine)
}

/**
 * Parses one line that is not a comment into a rule; throws RuleSyntaxError naming `source` and
 * `line` for a bad method list, a missing pattern, an unknown `%VARIABLE%` or a pattern RE2 refuses.
 */
export function parseRuleLine(rawLine: string, source: string, line: number): Rule {
  const match = ruleLine.exec(rawLine)
  if (!match) {
    const methodText = rawLine.trim().split(/[\t ]/)[0]!
    const reason = /^[A-Z]+(?:,[A-Z]+)*$/.test(methodText)
      ? `"${methodText}" has no pattern after the methods`
      : `"${methodText}" is not a comma-separated list of upper-case HTTP methods`
    throw new RuleSyntaxError(source, line, reason)
  }
  const pattern = match[2]!
  if (inlineComment.test(pattern))
    throw new RuleSyntaxError(
      source,
      line,
      'a "#" after a blank in a rule: CetusGuard reads it as part of the pattern, vault would read a comment; put the comment on its own line, or write [#] in the pattern',
    )
  return {
    methods: match[1]!.split(','),
    pattern,
    regex: compilePattern(pattern, source, line),
    source,
    line,
  }
}

/** Parses rule text (rules and comments only) into rules; throws RuleSyntaxError for the first bad line. */
export function parseRules(text: string, source = 'rules'): Rule[] {
  const rules: Rule[] = []
  for (const [index, rawLine] of ruleTextLines(text).entries()) {
    if (!isCommentLine(rawLine)) rules.push(parseRuleLine(rawLine, source, index + 1))
  }
  return rules
}

function compilePattern(pattern: string, source: string, line: number): RulePattern {
  try {
    return compileRulePattern(expandVariables(pattern))
  } catch (error) {
    if (error instanceof UnknownVariableError) throw new RuleSyntaxError(source, line, error.message)
    if (error instanceof PatternSyntaxError)
      throw new RuleSyntaxError(source, line, `the pattern does not compile (RE2): ${error.message}`)
    throw error
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
  | (Decision & { valid: true; canonicalPath: string; query: string; forwardTarget: string })
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
    query: target.query,
    forwardTarget: target.forwardTarget,
  }
}

/** Rules written as text, one line, for messages: `GET,HEAD %API_PREFIX_PING% (built-in line 1)`. */
export function describeRule(rule: Rule): string {
  return `${rule.methods.join(',')} ${rule.pattern} (${rule.source} line ${rule.line})`
}
