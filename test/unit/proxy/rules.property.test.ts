/**
 * Property tests of the rule patterns (fast-check, seeded): the trust boundary is re2-subset.ts, which
 * hands part of RE2's syntax to V8's linear-time engine. For patterns from a grammar of RE2 syntax (in
 * and out of that subset, valid and invalid) and strings (ASCII and not), the compiled rule pattern
 * decides exactly as RE2 itself (re2js) does, and refuses exactly what RE2 refuses.
 */
import fc from 'fast-check'
import { RE2JS } from 're2js'
import { describe, expect, it } from 'vitest'
import { linearSubsetSource } from '../../../src/proxy/re2-subset.js'
import { compileRulePattern, PatternSyntaxError } from '../../../src/proxy/rule-pattern.js'
import { decide, parseRules } from '../../../src/proxy/rules.js'

const alphabet = [
  'a',
  'b',
  'k',
  'K',
  'z',
  '0',
  '7',
  '/',
  '.',
  '-',
  '_',
  ':',
  ' ',
  '%',
  '{',
  ']',
  '\n',
  'é',
  'ſ',
  '🐳',
]
const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 10 }).map((chars) => chars.join(''))

/** RE2 atoms with strings each (usually) matches, so that generated strings often match. */
const atoms: [string, string[]][] = [
  ['a', ['a']],
  ['b', ['b']],
  ['k', ['k', 'K']],
  ['/', ['/']],
  ['.', ['x', '\n', '🐳']],
  ['-', ['-']],
  [' ', [' ']],
  [':', [':']],
  ['%', ['%']],
  ['é', ['é']],
  ['🐳', ['🐳']],
  ['\\.', ['.']],
  ['\\-', ['-']],
  ['\\/', ['/']],
  ['\\{', ['{']],
  ['\\]', [']']],
  ['\\%', ['%']],
  ['\\_', ['_']],
  ['[ab]', ['a', 'K']],
  ['[^/]', ['x', '/', 'é']],
  ['[a-z]', ['q', 'Q']],
  ['[a-]', ['-']],
  ['[-a]', ['a']],
  ['[\\d-]', ['5', '-']],
  ['[]a]', [']']],
  ['[^]a]', ['b']],
  ['[z-a]', ['a']],
  ['[a-b-c]', ['c']],
  ['[\\w.]', ['.', 'Z', 'ſ']],
  ['[[:alpha:]]', ['a', 'é']],
  ['\\d', ['7', '٣']],
  ['\\w', ['w', 'W', '_', 'ſ', 'K']],
  ['\\D', ['d', '7']],
  ['\\W', ['-', 'W']],
  ['\\s', [' ', '\n']],
  ['\\S', ['s', ' ']],
  ['\\pL', ['λ', '1']],
  ['\\x41', ['A']],
  ['\\x{1F433}', ['🐳']],
  ['\\101', ['A']],
  ['\\Q.*\\E', ['.*']],
  ['\\b', ['']],
  ['\\C', ['a']],
  ['^', ['']],
  ['$', ['']],
  ['\\A', ['']],
  ['\\z', ['']],
  ['{', ['{']],
  ['}', ['}']],
  [']', [']']],
  ['a{,2}', ['a{,2}']],
  ['a{01}', ['a{01}']],
]
const quantifiers: [string, number, number][] = [
  ['', 1, 1],
  ['', 1, 1],
  ['', 1, 1],
  ['*', 0, 3],
  ['+', 1, 3],
  ['?', 0, 1],
  ['*?', 0, 2],
  ['+?', 1, 2],
  ['??', 0, 1],
  ['{2}', 2, 2],
  ['{1,3}', 1, 3],
  ['{0,}', 0, 2],
  ['{2,}?', 2, 3],
  ['{0}', 0, 0],
  ['{3,1}', 1, 1],
  ['{1001}', 1, 1],
  ['**', 0, 1],
  ['{2}{3}', 6, 6],
]
const openers = ['(', '(?:', '(?P<n>', '(?i)', '(?i:', '(?s:', '(?U:', '(?<=']

/** A pattern and a string built alongside it that it (usually) matches. */
type Generated = [pattern: string, sample: string]

const re2Pattern: fc.Arbitrary<Generated> = fc.letrec((tie) => ({
  atom: fc.oneof(
    { depthSize: 'small' },
    fc
      .tuple(fc.constantFrom(...atoms), fc.nat())
      .map(([[pattern, samples], n]): Generated => [pattern, samples[n % samples.length]!]),
    tie('group'),
  ),
  group: fc
    .tuple(
      fc.constantFrom(...openers),
      tie('sequence'),
      fc.option(tie('sequence'), { nil: undefined }),
      fc.boolean(),
    )
    .map(([open, left, right, takeRight]): Generated => {
      const [l, ls] = left as Generated
      if (open === '(?i)') return ['(?i)', '']
      const r = right as Generated | undefined
      return [`${open}${l}${r ? `|${r[0]}` : ''})`, r && takeRight ? r[1] : ls]
    }),
  piece: fc
    .tuple(tie('atom'), fc.constantFrom(...quantifiers), fc.nat())
    .map(([atom, [quantifier, min, max], n]): Generated => {
      const [pattern, sample] = atom as Generated
      return [`${pattern}${quantifier}`, sample.repeat(min + (n % (max - min + 1)))]
    }),
  sequence: fc.array(tie('piece'), { minLength: 1, maxLength: 4 }).map((pieces): Generated => {
    const list = pieces as Generated[]
    return [list.map(([p]) => p).join(''), list.map(([, s]) => s).join('')]
  }),
})).sequence as fc.Arbitrary<Generated>

function re2Anchored(pattern: string): RE2JS | undefined {
  try {
    RE2JS.compile(pattern)
    RE2JS.compile(`${pattern})`) // an open \Q: refused on purpose (see rule-pattern.ts)
    return undefined
  } catch {
    try {
      return RE2JS.compile(`^(?:${pattern})$`)
    } catch {
      return undefined
    }
  }
}

describe('rule patterns decide as RE2 does', () => {
  it('on random RE2 syntax and random strings, whichever engine serves them', () => {
    let linear = 0
    let matched = 0
    fc.assert(
      fc.property(re2Pattern, fc.array(text, { maxLength: 4 }), ([pattern, sample], others) => {
        const paths = [sample, sample.slice(1), `${sample}a`, sample.toUpperCase(), ...others]
        const reference = re2Anchored(pattern)
        let compiled
        try {
          compiled = compileRulePattern(pattern)
        } catch (error) {
          expect(error, pattern).toBeInstanceOf(PatternSyntaxError)
          expect(reference, `RE2 accepts ${pattern}`).toBeUndefined()
          return
        }
        expect(reference, `RE2 refuses ${pattern}`).toBeDefined()
        if (compiled.engine === 'v8') linear++
        if (reference!.test(sample)) matched++
        for (const path of paths)
          expect(compiled.test(path), `${pattern} on ${JSON.stringify(path)}`).toBe(reference!.test(path))
      }),
      { seed: 15, numRuns: 1500 },
    )
    expect(linear).toBeGreaterThan(50)
    expect(matched).toBeGreaterThan(150)
  })

  it.each([
    ['/containers/[^/]+/json', '[^\\x2f]+'],
    ['a.b', '[^\\n]'],
    ['\\d+', '[0-9]+'],
    ['(?:a|b){2,5}?', '{2,5}'],
    ['x*?', '*'],
  ])('translates %s (source contains %s)', (pattern, fragment) => {
    expect(linearSubsetSource(pattern)).toContain(fragment)
  })

  it.each([
    ['(?i)a'],
    ['\\x41'],
    ['\\pL'],
    ['[[:alpha:]]'],
    ['\\Q.\\E'],
    ['a{,2}'],
    ['a{01}'],
    ['é'],
    ['\\s'],
    ['^*'],
    ['(?P<n>a)'],
    ['a**'],
    ['a{2}{3}'],
    ['(a{100}){100}'],
    ['[]a]'],
    ['a)'],
    ['(a'],
    ['{'],
    ['\\b'],
  ])('leaves %s to RE2', (pattern) => {
    expect(linearSubsetSource(pattern)).toBeUndefined()
  })
})

describe('rule texts: any line, any path', () => {
  it('either refuse the text with a RuleSyntaxError or answer every request', () => {
    const line = fc.string({
      maxLength: 30,
      unit: fc.constantFrom(...'GET POST,/()[]{}*+?|\\%^$.-aAzZ09#!\t'.split('')),
    })
    fc.assert(
      fc.property(fc.array(line, { maxLength: 4 }), text, (lines, path) => {
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
