/**
 * Differential fuzzing of the fast YAML reader (fast-check, seeded) against the `yaml` package it
 * stands in front of: compose files are untrusted input, and the reader must never give a value the
 * full parser would not. Documents are built line by line from a grammar of compose-like pieces
 * (keys, indentation, scalars, flow collections on one line, on the next line and over several lines,
 * comments, anchors, aliases, merge keys, block scalars, sequence items), valid and invalid. For each,
 * the fast reader either refuses with UnsupportedYaml or gives exactly the full parser's value, and
 * it never accepts a document the full parser rejects.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseSimpleYaml, UnsupportedYaml } from '../../../src/compose/fast-yaml.js'
import { parseWithFullParser } from '../../../src/compose/yaml-source.js'

const keys = ['a', 'b', 'image', '"q k"', "'s'", '80', 'x-y', 'k.v', '<<', 'a b', '"c: d"']
const scalars = [
  '',
  '1',
  '0440',
  'true',
  'null',
  '~',
  'text',
  'a b',
  '"dq \\" x"',
  "'sq ''x'''",
  '${VAR:-x}',
  '$$HOME',
  'http://h:1/p#f',
  '[a, "b, c", 1]',
  '{k: v, n: 1}',
  '[]',
  '{}',
  '[',
  '{',
  ']',
  '}',
  '&anc v',
  '&anc',
  '*anc',
  '&m {a: 1}',
  '*m',
  '|',
  '>-',
  'x # comment',
  '"unterminated',
  'a: b',
  '[a, [b]]',
]
const entries = ['"CMD-SHELL",', 'plain,', "'sq',", '1,', 'x y', '"last"', 'k: v,', '[n],', ',', '']
const comments = ['# comment', '  # indented comment', '']

const line = fc.oneof(
  fc.record({
    indent: fc.constantFrom(0, 2, 4, 6),
    key: fc.constantFrom(...keys),
    value: fc.constantFrom(...scalars),
  }),
  fc.record({
    indent: fc.constantFrom(0, 2, 4, 6),
    item: fc.constantFrom('- ', '-', '- - '),
    value: fc.constantFrom(...scalars),
  }),
  fc.record({ indent: fc.constantFrom(0, 2, 4, 6, 8), entry: fc.constantFrom(...entries, ...scalars) }),
  fc.record({ indent: fc.constantFrom(0, 4), comment: fc.constantFrom(...comments) }),
)

type Line =
  | { indent: number; key: string; value: string }
  | { indent: number; item: string; value: string }
  | { indent: number; entry: string }
  | { indent: number; comment: string }

function render(lines: Line[]): string {
  return lines
    .map((piece) => {
      const pad = ' '.repeat(piece.indent)
      if ('key' in piece) return `${pad}${piece.key}:${piece.value === '' ? '' : ` ${piece.value}`}`
      if ('item' in piece) return `${pad}${piece.item}${piece.value}`
      if ('entry' in piece) return `${pad}${piece.entry}`
      return piece.comment
    })
    .join('\n')
}

/** The full parser's value, or `refused` when it rejects the text. */
function fullValue(text: string): unknown {
  try {
    return { value: parseWithFullParser(text, 'fuzz.yaml').value }
  } catch {
    return 'refused'
  }
}

describe('fast YAML reader against the yaml package', () => {
  it('gives the full parser value or refuses, for generated compose-like documents', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (lines) => {
        const text = `${render(lines as Line[])}\n`
        let fast
        try {
          fast = parseSimpleYaml(text)
        } catch (error) {
          if (error instanceof UnsupportedYaml) return
          throw error
        }
        if (typeof fast.value !== 'object' || fast.value === null || Array.isArray(fast.value)) return
        accepted++
        expect(fullValue(text), text).toEqual({ value: fast.value })
      }),
      { seed: 18_007, numRuns: 20_000 },
    )
    // the grammar must reach the accepting paths, or the property says nothing
    expect(accepted).toBeGreaterThan(500)
  })

  it('reads the multi-line flow collections of sentry-like healthchecks as the full parser does', () => {
    const entry = fc.constantFrom('"CMD-SHELL"', 'plain', "'it''s'", '1', 'true', 'x y')
    fc.assert(
      fc.property(
        fc.array(fc.tuple(entry, fc.constantFrom('', ' # c')), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.constantFrom(2, 4, 6),
        (items, trailingComma, closeIndent) => {
          const body = items.map(
            ([value, comment], index) =>
              `      ${value}${index < items.length - 1 || trailingComma ? ',' : ''}${comment}`,
          )
          const text = `hc:\n  test: [\n${body.join('\n')}\n${' '.repeat(closeIndent)}]\n  interval: 5s\n`
          const fast = parseSimpleYaml(text)
          expect(fullValue(text), text).toEqual({ value: fast.value })
        },
      ),
      { seed: 17_006, numRuns: 2_000 },
    )
  })
})
