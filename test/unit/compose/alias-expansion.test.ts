/**
 * Compose's guard against YAML alias bombs, on values the `yaml` package parses (it shares an anchored
 * value between its aliases, as the fast reader does). The decode counts are worked out by hand from
 * go-yaml's rule (decode.go: one per node, an alias one plus the nodes it expands to), and the ratio
 * against the rule's own end points.
 */
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  allowedAliasRatio,
  checkAliasExpansion,
  countAliasExpansion,
  excessiveAliasing,
} from '../../../src/compose/alias-expansion.js'

/** A document of `levels` levels, each a list of `width` aliases to the level below. */
function bomb(levels: number, width: number): string {
  const lines = ['a0: &a0 [x, y]']
  for (let level = 1; level <= levels; level++)
    lines.push(`a${level}: &a${level} [${Array.from({ length: width }, () => `*a${level - 1}`).join(', ')}]`)
  return lines.join('\n')
}

describe('countAliasExpansion', () => {
  it('counts every node once and an alias as one plus what it expands to', () => {
    // mapping 1; key a 1 + sequence 1 + 2 items; key b 1 + alias (1 + 3)
    expect(countAliasExpansion(parse('a: &x [1, 2]\nb: *x'))).toEqual({
      decodes: 10,
      aliasDecodes: 3,
      refused: false,
    })
    // mapping 1; key a 1 + inner mapping (1 + key 1 + value 1); key b 1 + alias (1 + 3); key c 1 + scalar 1
    expect(countAliasExpansion(parse('a: &m {k: v}\nb: *m\nc: &s 5'))).toEqual({
      decodes: 12,
      aliasDecodes: 3,
      refused: false,
    })
  })

  it('refuses a bomb of nested aliases, and quickly', () => {
    const value = parse(bomb(9, 9), { maxAliasCount: -1 })
    const started = performance.now()
    expect(countAliasExpansion(value).refused).toBe('excessive')
    expect(performance.now() - started).toBeLessThan(1000)
    expect(() => checkAliasExpansion(value, 'compose.yaml')).toThrow(/excessive aliasing/)
  })

  it('lets a file that uses a few anchors through (x- fragments reused by services)', () => {
    const services = Array.from({ length: 50 }, (_, index) => `  s${index}: *common`).join('\n')
    const value = parse(
      `x-common: &common\n  image: app\n  environment: {A: "1", B: "2"}\nservices:\n${services}`,
    )
    expect(countAliasExpansion(value).refused).toBe(false)
  })

  it('refuses an alias inside the value it names', () => {
    const value = parse('a: &x [1, *x]')
    expect(countAliasExpansion(value).refused).toBe('cycle')
    expect(() => checkAliasExpansion(value, 'compose.yaml')).toThrow(/alias to itself/)
  })

  it('treats __proto__ and constructor keys as keys', () => {
    const value = JSON.parse('{"__proto__": [1, 2], "constructor": {"a": 1}}') as unknown
    // mapping 1; key 1 + sequence (1 + 2); key 1 + mapping (1 + key 1 + value 1)
    expect(countAliasExpansion(value)).toEqual({ decodes: 9, aliasDecodes: 0, refused: false })
  })
})

describe('allowedAliasRatio and excessiveAliasing', () => {
  it('allows 99% up to 400,000 decodes, falling linearly to 10% at 4,000,000', () => {
    expect(allowedAliasRatio(1)).toBe(0.99)
    expect(allowedAliasRatio(400_000)).toBe(0.99)
    expect(allowedAliasRatio(2_200_000)).toBeCloseTo(0.545, 10)
    expect(allowedAliasRatio(4_000_000)).toBeCloseTo(0.1, 10)
    expect(allowedAliasRatio(1e12)).toBe(0.1)
    for (let decodes = 400_000; decodes < 4_000_000; decodes += 90_000)
      expect(allowedAliasRatio(decodes + 90_000)).toBeLessThan(allowedAliasRatio(decodes))
  })

  it('needs more than 100 alias decodes in more than 1,000', () => {
    expect(excessiveAliasing(1001, 100)).toBe(false)
    expect(excessiveAliasing(1000, 999)).toBe(false)
    expect(excessiveAliasing(1001, 1000)).toBe(true)
    expect(excessiveAliasing(1001, 990)).toBe(false)
  })
})
