/**
 * The matcher behind output masking: the longest masked value starting at a position, found by the trie
 * walk, must be the one a naive scan of every value finds (fast-check over a small alphabet, so that
 * values share prefixes and blocks, and over multi-byte text); a walk cut short by the end of a chunk
 * says so instead of guessing.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { blockHash, maskableValues, matcherFor, walkTrie } from '../../../src/masking/mask-matcher.js'

/** The byte length of the longest value that `buffer` holds at `start` (0: none). */
function naiveLongest(values: string[], buffer: Buffer, start: number): number {
  let longest = 0
  for (const value of maskableValues(values).masked) {
    const bytes = Buffer.from(value, 'utf8')
    if (bytes.length > longest && buffer.subarray(start, start + bytes.length).equals(bytes))
      longest = bytes.length
  }
  return longest
}

const text = (unit: fc.Arbitrary<string>, maxLength: number) => fc.string({ unit, maxLength })
const small = fc.constantFrom('a', 'b', 'é', '\n')

describe('maskableValues', () => {
  it('keeps unique values of at least 4 characters and counts the shorter ones', () => {
    expect(maskableValues(['abcd', 'abcd', 'abc', '', 'x', '__proto__'])).toEqual({
      masked: ['abcd', '__proto__'],
      tooShort: 2,
    })
  })
})

describe('walkTrie', () => {
  it('finds at every position the longest value a naive scan finds', () => {
    fc.assert(
      fc.property(
        fc.array(text(small, 7), { minLength: 1, maxLength: 6 }),
        text(small, 30),
        fc.array(fc.tuple(fc.nat(30), fc.integer({ min: 4, max: 12 })), { maxLength: 4 }),
        (given, haystack, slices) => {
          // values cut from the text itself, so that matches (and values nested in values) are common
          const values = [...given, ...slices.map(([start, length]) => haystack.slice(start, start + length))]
          const matcher = matcherFor(values)
          const masked = maskableValues(values).masked
          if (masked.length === 0) {
            expect(matcher).toBeUndefined()
            return
          }
          const buffer = Buffer.from(haystack, 'utf8')
          for (let start = 0; start < buffer.length; start++) {
            const found = walkTrie(matcher!, buffer, start, true)
            const expected = naiveLongest(values, buffer, start)
            expect(found).toEqual(expected > 0 ? { kind: 'match', length: expected } : { kind: 'none' })
          }
        },
      ),
      { numRuns: 1500 },
    )
  })

  it('is undecided at the end of a chunk that a longer value could continue', () => {
    const matcher = matcherFor(['abcd', 'abcdefgh'])!
    expect(walkTrie(matcher, Buffer.from('xxabcdef'), 2, false)).toEqual({ kind: 'undecided' })
    expect(walkTrie(matcher, Buffer.from('xxabcdef'), 2, true)).toEqual({ kind: 'match', length: 4 })
    expect(walkTrie(matcher, Buffer.from('xxabcdeX'), 2, false)).toEqual({ kind: 'match', length: 4 })
    expect(walkTrie(matcher, Buffer.from('xxabcdefgh'), 2, false)).toEqual({ kind: 'match', length: 8 })
  })

  it('gives the same matcher for the same array and none for values too short', () => {
    const values = ['secret-value']
    expect(matcherFor(values)).toBe(matcherFor(values))
    expect(matcherFor(['abc', ''])).toBeUndefined()
  })

  it('builds the window and shift table from the shortest value', () => {
    const matcher = matcherFor(['0123456789', 'abcd'])!
    expect(matcher.window).toBe(4)
    expect(matcher.longest).toBe(10)
    // a block inside the shortest value's window must not let the scan skip past a value
    expect(matcher.shift[blockHash(0x61, 0x62, 0x63)]).toBe(1)
    expect(matcher.shift[blockHash(0x62, 0x63, 0x64)]).toBe(0)
  })

  it('handles many long values (the edge table grows with them)', () => {
    const values = Array.from({ length: 300 }, (_, index) => `value-${index}-${'x'.repeat(index % 40)}`)
    const matcher = matcherFor(values)!
    for (const value of values.slice(0, 50)) {
      const buffer = Buffer.from(`..${value}..`)
      expect(walkTrie(matcher, buffer, 2, true)).toEqual({
        kind: 'match',
        length: naiveLongest(values, buffer, 2),
      })
    }
  })
})
