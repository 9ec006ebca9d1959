/**
 * Anchors, aliases and `<<` merge keys of the fast YAML reader. The `yaml` package with merge keys on
 * (YAML 1.1's rule, which compose-go's reader applies) is the oracle of what a mapping with merges holds:
 * the same entries written as YAML must give the same keys and values.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { UnsupportedYaml } from '../../../src/compose/fast-yaml-errors.js'
import {
  buildMapping,
  isAlias,
  mergeSources,
  resolveAlias,
  splitAnchor,
  type MappingEntry,
} from '../../../src/compose/fast-yaml-anchors.js'

const sources: Record<string, Record<string, number>> = {
  a: { x: 1, y: 1 },
  b: { y: 2, z: 2 },
  c: { x: 3, w: 3 },
}

/** One mapping entry: a written key (k, x, y, z, w) or a merge of one or more anchors. */
const entry = fc.oneof(
  fc.record({ key: fc.constantFrom('k', 'x', 'y', 'z', 'w'), value: fc.integer({ min: 10, max: 99 }) }),
  fc.record({ merge: fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }) }),
)

function yamlOf(entries: Array<{ key: string; value: number } | { merge: string[] }>): string {
  const anchors = Object.entries(sources).map(
    ([name, source]) =>
      `${name}: &${name} {${Object.entries(source)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}}`,
  )
  const body = entries.map((item) =>
    'key' in item
      ? `  ${item.key}: ${item.value}`
      : `  <<: [${item.merge.map((name) => `*${name}`).join(', ')}]`,
  )
  return [...anchors, 'out:', ...body, ''].join('\n')
}

describe('buildMapping', () => {
  it('builds the mapping the yaml package builds with merge keys', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 5 }), (entries) => {
        const keys = entries.flatMap((item) => ('key' in item ? [item.key] : []))
        fc.pre(new Set(keys).size === keys.length) // a duplicate key is the full parser's to refuse
        fc.pre(entries.filter((item) => 'merge' in item).length <= 1) // the reader takes one `<<` a mapping
        const built = buildMapping(
          entries.map((item): MappingEntry =>
            'key' in item ? item : { merge: item.merge.map((name) => sources[name]!) },
          ),
        )
        const expected = (parse(yamlOf(entries), { merge: true }) as { out: Record<string, unknown> }).out
        expect(built).toEqual(expected)
        // (key order may differ: a key written after `<<` sits where it is written here; compose-go decodes
        // into Go maps, whose order is not kept)
        expect(Object.keys(built).sort()).toEqual(Object.keys(expected).sort())
      }),
      { numRuns: 1000 },
    )
  })
})

describe('anchors and aliases', () => {
  const anchors = new Map<string, unknown>([
    ['env', { A: '1' }],
    ['list', ['x']],
    ['name.with-dots', 'v'],
  ])

  it('splits an anchor from what follows it', () => {
    expect(splitAnchor('&env')).toEqual({ name: 'env', rest: '' })
    expect(splitAnchor('&env   value # c')).toEqual({ name: 'env', rest: 'value # c' })
    for (const text of ['&', '&a[b]', '&a *b', '&a !tag x', '&a |'])
      expect(() => splitAnchor(text)).toThrow(UnsupportedYaml)
  })

  it('resolves aliases to the anchored value itself and hands unknown ones over', () => {
    expect(isAlias('*env # comment')).toBe(true)
    expect(isAlias('*env extra')).toBe(false)
    expect(resolveAlias(anchors, '*env')).toBe(anchors.get('env'))
    expect(resolveAlias(anchors, '*name.with-dots')).toBe('v')
    expect(() => resolveAlias(anchors, '*missing')).toThrow(UnsupportedYaml)
    expect(() => resolveAlias(anchors, '*__proto__')).toThrow(UnsupportedYaml)
    expect(() => resolveAlias(anchors, '*constructor')).toThrow(UnsupportedYaml)
  })

  it('merges mappings only', () => {
    expect(mergeSources(anchors, '[*env, *env]')).toEqual([{ A: '1' }, { A: '1' }])
    expect(() => mergeSources(anchors, '*list')).toThrow(UnsupportedYaml)
    expect(() => mergeSources(anchors, '*name.with-dots')).toThrow(UnsupportedYaml)
  })
})
