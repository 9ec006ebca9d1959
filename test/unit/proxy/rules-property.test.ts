/**
 * Property tests of the rule patterns (fast-check, seeded). Whether a whole string matches a regular
 * expression does not depend on the engine, so on the syntax RE2 and JavaScript share, RE2 (re2js)
 * and V8 must agree on every string; and no pattern/path pair may throw or fail to answer.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileRulePattern } from '../../../src/proxy/rule-pattern.js'
import { decide, parseRules } from '../../../src/proxy/rules.js'

const alphabet = ['a', 'b', '/', '.', '-', 'é', '🐳', 'K']
const pathString = fc.array(fc.constantFrom(...alphabet), { maxLength: 10 }).map((chars) => chars.join(''))

/** Patterns in the syntax both engines read alike (no flags, no Unicode classes, no anchors inside). */
const sharedPattern: fc.Arbitrary<string> = fc.letrec((tie) => ({
  atom: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('a', 'b', '/', '\\.', '-', 'é', '.', '[ab]', '[^/]', '[a-z]', '\\d', '\\w', '🐳'),
    tie('group'),
  ),
  group: fc
    .tuple(tie('sequence'), fc.option(tie('sequence'), { nil: undefined }))
    .map(([left, right]) => `(?:${left as string}${right === undefined ? '' : `|${right as string}`})`),
  piece: fc
    .tuple(tie('atom'), fc.constantFrom('', '', '*', '+', '?', '{1,2}', '{2}', '*?'))
    .map(([atom, quantifier]) => `${atom as string}${quantifier}`),
  sequence: fc
    .array(tie('piece'), { minLength: 1, maxLength: 4 })
    .map((pieces) => (pieces as string[]).join('')),
})).sequence as fc.Arbitrary<string>

describe('rule patterns: RE2 against V8 on their shared syntax', () => {
  it('decide the same strings', () => {
    fc.assert(
      fc.property(sharedPattern, fc.array(pathString, { minLength: 1, maxLength: 8 }), (pattern, paths) => {
        const re2 = compileRulePattern(pattern)
        const v8 = new RegExp(`^(?:${pattern})$`, 'u')
        for (const path of paths) expect(re2.test(path), `${pattern} on ${path}`).toBe(v8.test(path))
      }),
      { seed: 15, numRuns: 400 },
    )
  })
})

describe('rule texts: any line, any path', () => {
  it('either refuse the text with a RuleSyntaxError or answer every request', () => {
    const line = fc.string({
      maxLength: 30,
      unit: fc.constantFrom(...'GET POST,/()[]{}*+?|\\%^$.-aAzZ09#!\t'.split('')),
    })
    fc.assert(
      fc.property(fc.array(line, { maxLength: 4 }), pathString, (lines, path) => {
        let rules
        try {
          rules = parseRules(lines.join('\n'))
        } catch (error) {
          expect((error as Error).name).toBe('RuleSyntaxError')
          return
        }
        expect(typeof decide(rules, 'GET', path).allowed).toBe('boolean')
      }),
      { seed: 15, numRuns: 500 },
    )
  })
})
