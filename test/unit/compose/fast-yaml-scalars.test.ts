/**
 * Scalars of the fast YAML reader against the `yaml` package, the full parser the loader falls back to:
 * plain scalars resolve as its YAML 1.2 core schema does, except `0440`-style octals, which resolve as
 * its YAML 1.1 schema does (compose-go's go-yaml still reads them as octal); double-quoted escapes
 * unescape as it unescapes them, or are handed to it (UnsupportedYaml), never read differently.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { UnsupportedYaml } from '../../../src/compose/fast-yaml-errors.js'
import { parseLegacyOctal, resolvePlain, unescapeDouble } from '../../../src/compose/fast-yaml-scalars.js'

type Outcome = { value: unknown } | 'unsupported' | 'skip'

/** What the `yaml` package reads for the plain scalar `text` (skip: not a plain scalar there). */
function oracle(text: string): Outcome {
  let value: unknown
  try {
    const octal = /^[-+]?0[0-7]+$/.test(text)
    value = (parse(`v: ${text}`, octal ? { version: '1.1' } : { schema: 'core' }) as { v: unknown }).v
  } catch {
    return 'skip'
  }
  if (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    !Number.isSafeInteger(value) &&
    /^[-+]?\d+$/.test(text)
  )
    return 'unsupported'
  return { value }
}

function fast(read: () => unknown): Outcome {
  try {
    return { value: read() }
  } catch (error) {
    if (error instanceof UnsupportedYaml) return 'unsupported'
    throw error
  }
}

describe('resolvePlain', () => {
  const words = fc.constantFrom(
    ...['null', 'Null', 'NULL', '~', 'true', 'True', 'TRUE', 'false', 'FALSE', 'yes', 'on', 'y', 'nULL'],
    ...['.inf', '-.Inf', '+.INF', '.nan', '.NaN', '.NAN', '-.nan', '0o17', '0x1F', '0X1F', '0b101', '1_000'],
    ...['0440', '-017', '+0755', '08', '0', '-0', '00', '9007199254740993', '-9007199254740993', '1e400'],
    ...['constructor', '__proto__', '1:2', '12:30', '2026-01-01', '0o8', '0xG', '.', '+', '-.5e-3'],
  )
  const chars = fc.string({
    unit: fc.constantFrom(...'0123456789+-.eExo_abcdfinNIFA'.split('')),
    minLength: 1,
    maxLength: 10,
  })

  it('reads as the yaml package reads (core schema; YAML 1.1 octals)', () => {
    fc.assert(
      fc.property(fc.oneof(words, chars), (text) => {
        const expected = oracle(text)
        if (expected === 'skip') return
        expect(fast(() => resolvePlain(text))).toEqual(expected)
      }),
      { numRuns: 5000 },
    )
  })

  it('reads the empty scalar as null', () => {
    expect(resolvePlain('')).toBeNull()
  })

  it('reads octal modes as compose-go does', () => {
    expect(resolvePlain('0440')).toBe(0o440)
    expect(parseLegacyOctal('-017')).toBe(-15)
    expect(parseLegacyOctal('+0755')).toBe(0o755)
  })
})

describe('unescapeDouble', () => {
  const token = fc.constantFrom(
    ...['a', ' ', 'é', '😀', '\t', "'", '#', ':'],
    ...['\\\\', '\\"', '\\/', '\\n', '\\t', '\\r', '\\0', '\\b', '\\f', '\\e', '\\a', '\\v', '\\ '],
    ...['\\x41', '\\xff', '\\u00e9', '\\u2028', '\\uD83D', '\\N', '\\_', '\\L', '\\P', '\\U0001F600'],
    ...['\\q', '\\x4', '\\u12', '\\\t'], // (a lone trailing \ would escape the closing quote)
  )

  it('unescapes as the yaml package does, or hands the text to it', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), (tokens) => {
        const inner = tokens.join('')
        const got = fast(() => unescapeDouble(inner))
        if (got === 'unsupported') return
        let expected: unknown
        try {
          expected = parse(`"${inner}"`) as string
        } catch {
          throw new Error(`read ${JSON.stringify(inner)}, which the yaml package refuses`)
        }
        expect(got).toEqual({ value: expected })
      }),
      { numRuns: 3000 },
    )
  })

  it('reads escapes the fast reader knows', () => {
    expect(unescapeDouble('a\\x41\\u00e9\\"\\\\\\/\\e')).toBe('aAé"\\/\x1b')
  })

  it('leaves escapes it does not know to the full parser', () => {
    for (const inner of ['\\N', '\\U0001F600', '\\q', '\\x4'])
      expect(() => unescapeDouble(inner)).toThrow(UnsupportedYaml)
  })
})
