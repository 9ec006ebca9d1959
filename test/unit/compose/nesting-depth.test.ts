import { readFileSync } from 'node:fs'
import { LineCounter, parseDocument } from 'yaml'
import { describe, expect, it } from 'vitest'
import { maxNestingDepth, pathPastDepth } from '../../../src/compose/nesting-depth.js'
import { NestingTooDeep, parseDocumentWithinDepth } from '../../../src/compose/yaml-document.js'
import { composeCorpus, yamlFiles } from '../../helpers/yaml-fixtures.js'

/** A chain of `levels` one-key mappings (`{a: {a: ... {}}}`): `levels` deep. */
function chain(levels: number): object {
  let value: object = {}
  for (let level = 1; level < levels; level++) value = { a: value }
  return value
}

describe('pathPastDepth', () => {
  it.each([
    ['a scalar', 'text', undefined],
    ['an empty mapping', {}, undefined],
    ['a mapping of scalars', { a: 1, b: [1, 2] }, undefined],
    ['exactly the limit', chain(maxNestingDepth), undefined],
  ])('%s: within the limit', (_name, value, expected) => {
    expect(pathPastDepth(value)).toBe(expected)
  })

  it('one level past the limit: the path of the first collection past it', () => {
    const path = pathPastDepth({ x: 1, deep: chain(maxNestingDepth) })
    expect(path).toEqual(['deep', ...Array<string>(maxNestingDepth - 1).fill('a')])
  })

  it('follows sequences by index', () => {
    expect(pathPastDepth([1, [2, [3, []]]], 3)).toEqual([1, 1, 1])
  })

  it('counts a value shared by aliases at every place it is used, measuring it once', () => {
    const anchored = chain(100)
    const uses = Array.from({ length: 10_000 }, () => ({ anchored }))
    expect(pathPastDepth({ uses })).toBeUndefined()
    expect(pathPastDepth({ a: { b: { c: { anchored } } } }, 100)).toEqual([
      'a',
      'b',
      'c',
      'anchored',
      ...'a'.repeat(96),
    ])
  })

  it('a value a million levels deep is measured without recursion', () => {
    expect(pathPastDepth(chain(1_000_000))).toHaveLength(maxNestingDepth)
  })

  it('a value that contains itself ends (alias-expansion.ts refuses it)', () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(pathPastDepth(cycle)).toBeUndefined()
  })
})

describe('parseDocumentWithinDepth', () => {
  const options = { merge: true, prettyErrors: false }
  const texts = [
    ...yamlFiles(composeCorpus).map((file) => readFileSync(file, 'utf8')),
    'a: 1\n---\nb: 2\n',
    'a: [1, {b: 2}\n',
    '',
    '? [a, b]\n: c\n',
  ]

  it.each(texts.map((text, index) => [index, text] as const))(
    'text %i: the same document, errors and lines as parseDocument',
    (_index, text) => {
      const counter = new LineCounter()
      const ours = parseDocumentWithinDepth(text, options, counter, maxNestingDepth)
      const theirCounter = new LineCounter()
      const theirs = parseDocument(text, { ...options, lineCounter: theirCounter })
      expect(ours.toJS({ maxAliasCount: -1 })).toEqual(theirs.toJS({ maxAliasCount: -1 }))
      expect(ours.errors.map((error) => [error.code, error.pos])).toEqual(
        theirs.errors.map((error) => [error.code, error.pos]),
      )
      expect(counter.lineStarts).toEqual(theirCounter.lineStarts)
    },
  )

  it.each([
    ['flow sequences', (levels: number) => `x: ${'['.repeat(levels)}${']'.repeat(levels)}`],
    ['flow mappings', (levels: number) => `x: ${'{a: '.repeat(levels)}1${'}'.repeat(levels)}`],
    ['block sequences', (levels: number) => `x:\n  ${'- '.repeat(levels)}1`],
  ])('%s: the limit is read, one more is not', (_name, text) => {
    const depth = 20
    const parse = (levels: number) =>
      parseDocumentWithinDepth(text(levels), options, new LineCounter(), depth)
    expect(parse(depth - 1).errors).toEqual([])
    expect(() => parse(depth + 2)).toThrow(NestingTooDeep)
  })

  it('stops a megabyte of [ at the limit', () => {
    const started = performance.now()
    expect(() =>
      parseDocumentWithinDepth('['.repeat(1024 * 1024), options, new LineCounter(), maxNestingDepth),
    ).toThrow(NestingTooDeep)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
