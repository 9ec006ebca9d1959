/**
 * Differential test against CetusGuard itself: test/adversarial/proxy-rules/cetusguard-verdicts.json
 * holds rule texts and requests with the verdicts CetusGuard gave (cetusguard.BuildRules and the loop of
 * Server.validateRequest, built from hectorm/cetusguard; see oracle/README.md there). Documented
 * examples, the RE2 syntax CetusGuard rule files use, line-syntax corners and 800 seeded random
 * patterns. The property: a rule text CetusGuard accepts is accepted and decides every request the same
 * way; a text CetusGuard refuses is refused. The only exceptions are the documented ones below.
 */
import { readFileSync } from 'node:fs'
import { RE2JS } from 're2js'
import { describe, expect, it } from 'vitest'
import { decide, parseRules, RuleSyntaxError, type Rule } from '../../../src/proxy/rules.js'
import { expandVariables } from '../../../src/proxy/variables.js'

interface Verdict {
  rules: string
  requests: [string, string][]
  refused: boolean
  decisions?: boolean[]
}

const verdicts = readFileSync(
  new URL('../../adversarial/proxy-rules/cetusguard-verdicts.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Verdict)

function parse(text: string): Rule[] | RuleSyntaxError {
  try {
    return parseRules(text, 'case')
  } catch (error) {
    if (error instanceof RuleSyntaxError) return error
    throw error
  }
}

/** Documented difference: a pattern must be a complete RE2 expression on its own (and close its \Q). */
function incompleteAlone(text: string): boolean {
  const pattern = /^[\t ]*[A-Z,]+[\t ]+(.+?)[\t ]*$/.exec(text)?.[1]
  if (pattern === undefined) return false
  let expanded: string
  try {
    expanded = expandVariables(pattern)
  } catch {
    return true // documented difference: an unknown %VARIABLE% is refused, CetusGuard matches it as text
  }
  try {
    RE2JS.compile(expanded)
  } catch {
    return true
  }
  try {
    RE2JS.compile(`${expanded})`)
    return true
  } catch {
    return false
  }
}

describe('CetusGuard verdicts replayed', () => {
  it('has the recorded corpus', () => {
    expect(verdicts.length).toBeGreaterThan(800)
    expect(verdicts.filter((verdict) => !verdict.refused).length).toBeGreaterThan(300)
  })

  it.each(verdicts.map((verdict, index) => [index, verdict] as const))('case %i', (_index, verdict) => {
    const parsed = parse(verdict.rules)
    if (verdict.refused) {
      expect(parsed, `CetusGuard refuses ${JSON.stringify(verdict.rules)}`).toBeInstanceOf(RuleSyntaxError)
      return
    }
    if (parsed instanceof RuleSyntaxError) {
      expect(incompleteAlone(verdict.rules), `vault refuses what CetusGuard accepts: ${parsed.message}`).toBe(
        true,
      )
      return
    }
    const decisions = verdict.requests.map(([method, path]) => decide(parsed, method, path).allowed)
    expect(decisions, JSON.stringify(verdict)).toEqual(verdict.decisions)
  })
})
