/**
 * The `yaml` package's parseDocument run under a nesting limit. The package's own parseDocument is the
 * oracle: within the limit the document is the one it gives (fast-check over nested values written in
 * block and flow style); past it, the parse stops with NestingTooDeep, quickly, on a hostile megabyte.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LineCounter, parseDocument, stringify } from 'yaml'
import { NestingTooDeep, parseDocumentWithinDepth } from '../../../src/compose/yaml-document.js'

/** Nesting depth of a value: a scalar 0, a collection one more than its deepest item. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  const items = Array.isArray(value) ? value : Object.values(value)
  return 1 + Math.max(0, ...items.map(depthOf))
}

const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null)),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), tie('node'), { maxKeys: 3 }),
  ),
})).node

function parsed(text: string, depth: number) {
  return parseDocumentWithinDepth(text, {}, new LineCounter(), depth)
}

describe('parseDocumentWithinDepth', () => {
  it('gives the document parseDocument gives, within the limit, and stops past it', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (input, flow) => {
        const text = stringify(input, flow ? { collectionStyle: 'flow' } : {})
        const depth = depthOf(input)
        expect(parsed(text, Math.max(depth, 1)).toJS()).toEqual(parseDocument(text).toJS())
        if (depth >= 2) expect(() => parsed(text, depth - 2)).toThrow(NestingTooDeep)
      }),
      { numRuns: 500 },
    )
  })

  it.each([
    ['flow sequences', '['.repeat(1_000_000)],
    ['block sequences', '- '.repeat(500_000)],
    ['flow mappings', '{a: '.repeat(250_000)],
  ])('stops a megabyte of nested %s at once, where it starts', (_, text) => {
    const started = performance.now()
    let error: unknown
    try {
      parsed(text, 64)
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(NestingTooDeep)
    expect((error as NestingTooDeep).offset).toBeLessThan(1000)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it('reports a second document as an error, as parseDocument does', () => {
    const document = parsed('a: 1\n---\nb: 2\n', 8)
    expect(document.errors.map((error) => error.code)).toEqual(['MULTIPLE_DOCS'])
    const three = 'a: 1\n---\nb: 2\n---\nc: 3\n'
    expect(parsed(three, 8).errors.map((error) => error.code)).toEqual(
      parseDocument(three).errors.map((error) => error.code),
    )
  })

  it('fills the line counter as parseDocument fills it', () => {
    const text = 'a: 1\r\nb:\n  c: [2,\n    3]\n\n'
    const lines = new LineCounter()
    const expected = new LineCounter()
    parseDocumentWithinDepth(text, {}, lines, 8)
    parseDocument(text, { lineCounter: expected })
    expect(lines.lineStarts).toEqual(expected.lineStarts)
  })
})
