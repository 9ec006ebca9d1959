/**
 * Hostile rule texts and paths against the rule engine, one row per attack, each with the property it
 * must keep. Corpus data for CetusGuard's verdicts lives in test/adversarial/proxy-rules/.
 */
import { describe, expect, it } from 'vitest'
import { decide, parseRules, RuleSyntaxError } from '../../../src/proxy/rules.js'

describe('rule texts that try to widen what a rule allows', () => {
  it.each([
    ['closing the anchoring group', 'GET /_ping)|(.*', '/v1.41/images/create'],
    ['an open \\Q swallowing the end anchor', String.raw`GET /_ping\Q`, '/_ping$/anything'],
    ['a trailing backslash escaping the end anchor', 'GET /_ping\\', '/_ping$'],
    ['a leading quantifier repeating the start anchor', 'GET */json', '/anything/json'],
    ['a line break smuggled as a lone CR', 'GET /_ping\rPOST /.*', '/x'],
  ])(
    '%s: refused, or the text is the only thing it matches (never the widened path)',
    (_attack, text, path) => {
      let allowed = false
      try {
        allowed =
          decide(parseRules(text), 'POST', path).allowed || decide(parseRules(text), 'GET', path).allowed
      } catch (error) {
        expect(error).toBeInstanceOf(RuleSyntaxError)
      }
      expect(allowed).toBe(false)
    },
  )

  it.each([
    ['top-level alternation (CetusGuard anchors only the outer ends)', 'GET /_ping|/version', '/x/y/version'],
    ['top-level alternation, first branch', 'GET /_ping|/version', '/_ping/../../images/create'],
  ])('%s: every branch is anchored', (_attack, text, path) => {
    expect(decide(parseRules(text), 'GET', path).allowed).toBe(false)
  })
})

describe('paths that try to make a rule backtrack (RE2 matches in linear time)', () => {
  const long = 'a'.repeat(200_000)
  it.each([
    ['nested quantifiers', 'GET /(a+)+$', `/${long}!`],
    ['overlapping alternation under a star', 'GET /(a|aa)*b', `/${long}`],
    ['stacked wildcards', 'GET /.*.*.*.*x', `/${long}`],
    ['nested wildcard groups', 'GET /(.*/)*json', `/${'a/'.repeat(50_000)}x`],
  ])('%s: the decision comes back (deny)', (_attack, text, path) => {
    expect(decide(parseRules(text), 'GET', path).allowed).toBe(false)
  })
})
