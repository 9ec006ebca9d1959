/**
 * One-line values of the fast YAML reader against the `yaml` package, the full parser the loader falls
 * back to: every one-line value is either read as the package reads it (`v: TEXT`, YAML 1.2 core
 * schema) or handed to the package (UnsupportedYaml), never read differently. The generated texts mix
 * quotes, flow indicators, comments and `: ` so that the ambiguous cases are common. Digits exclude a
 * leading 0, whose octal reading is compose-go's on purpose (fast-yaml-scalars.test.ts covers it).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { UnsupportedYaml } from '../../../src/compose/fast-yaml-errors.js'
import {
  findMappingColon,
  parseInlineValue,
  parseKey,
  stripFlowComment,
} from '../../../src/compose/fast-yaml-inline.js'

type Outcome = { value: unknown } | 'unsupported' | 'invalid'

function fast(read: () => unknown): Outcome {
  try {
    return { value: read() }
  } catch (error) {
    if (error instanceof UnsupportedYaml) return 'unsupported'
    throw error
  }
}

function full(document: string, pick: (parsed: Record<string, unknown>) => unknown): Outcome {
  try {
    const parsed = parse(document, { schema: 'core', uniqueKeys: true }) as unknown
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'invalid'
    return { value: pick(parsed as Record<string, unknown>) }
  } catch {
    return 'invalid'
  }
}

const text = fc.string({
  unit: fc.constantFrom(
    ...'ab1 9.:,#[]{}"\'-\\_*&!?|>'.split(''),
    'true',
    'null',
    '~',
    ': ',
    ' #',
    '__proto__',
  ),
  maxLength: 10,
})

describe('parseInlineValue', () => {
  it('reads a one-line value as the yaml package reads it, or hands it over', () => {
    fc.assert(
      fc.property(text, (value) => {
        // what the reader hands over: one line, after `key: `, not empty and not a comment (fast-yaml.ts)
        fc.pre(!value.includes('\n') && value === value.trimStart() && value !== '' && !value.startsWith('#'))
        const got = fast(() => parseInlineValue(value))
        if (got === 'unsupported') return
        const expected = full(`v: ${value}\n`, (parsed) =>
          Object.keys(parsed).length === 1 ? parsed.v : Symbol('more keys'),
        )
        expect(expected, JSON.stringify(value)).not.toBe('invalid')
        expect(got).toEqual(expected)
      }),
      { numRuns: 20_000 },
    )
  })

  it.each([
    ['"a # b" # c', 'a # b'],
    ["'it''s'", "it's"],
    ['[a, "b, c", 1]', ['a', 'b, c', 1]],
    ['{a: 1, "b": x}', { a: 1, b: 'x' }],
    ['value # comment', 'value'],
    ['a#b', 'a#b'],
  ])('reads %j', (input, value) => {
    expect(parseInlineValue(input)).toEqual(value)
  })

  it('hands a flow mapping with a __proto__ key to the full parser instead of building it', () => {
    expect(() => parseInlineValue('{__proto__: {polluted: 1}}')).toThrow(UnsupportedYaml)
    expect(() => parseInlineValue('{a: 1, a: 2}')).toThrow(UnsupportedYaml)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('parseKey', () => {
  it('reads a key as the yaml package reads it, or hands it over', () => {
    fc.assert(
      fc.property(text, (key) => {
        // what the reader hands over: the text before the colon findMappingColon finds (a line that
        // starts with `#` is a comment, never a key)
        fc.pre(!key.includes('\n') && key === key.trim() && key !== '' && !key.startsWith('#'))
        fc.pre(findMappingColon(`${key}: v`) === key.length && !/^-(\s|$)/.test(key)) // `- ` is a sequence item
        const got = fast(() => parseKey(key))
        if (got === 'unsupported') return
        const expected = full(`${key}: v\n`, (parsed) => {
          const keys = Object.keys(parsed)
          return keys.length === 1 && parsed[keys[0]!] === 'v' ? keys[0] : Symbol('another shape')
        })
        expect(got, JSON.stringify(key)).toEqual(expected)
      }),
      { numRuns: 20_000 },
    )
  })

  it('hands over a key that starts like a document marker (fast-check found "... a" read as a key)', () => {
    for (const key of ['... a', '--- a', '...a', '---'])
      expect(
        fast(() => parseKey(key)),
        key,
      ).toBe('unsupported')
  })
})

describe('stripFlowComment', () => {
  it('strips a comment outside quotes only', () => {
    expect(stripFlowComment('"a # b", # c')).toBe('"a # b",')
    expect(stripFlowComment("'x#y' #z")).toBe("'x#y'")
    expect(stripFlowComment('a#b')).toBe('a#b')
    expect(stripFlowComment('# all')).toBe('')
    expect(stripFlowComment('"open # no close')).toBe('"open # no close')
  })
})
