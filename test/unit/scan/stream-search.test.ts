/**
 * The first line of each pattern, found in a stream of chunks and in one text held in memory, against a
 * reference by indexOf: however the input is cut into chunks, both give the line of the first occurrence.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileMatcher } from '../../../src/scan/matcher.js'
import { searchStream, searchText, startSearch } from '../../../src/scan/stream-search.js'

/** Pattern index -> 1-based line of its first occurrence, by indexOf and counting newlines before it. */
function reference(patterns: string[], text: string): Map<number, number> {
  const found = new Map<number, number>()
  patterns.forEach((pattern, index) => {
    const at = text.indexOf(pattern)
    if (at !== -1) found.set(index, text.slice(0, at).split('\n').length)
  })
  return found
}

async function* chunksOf(buffer: Buffer, sizes: number[]): AsyncGenerator<Uint8Array> {
  let at = 0
  for (let index = 0; at < buffer.length; index++) {
    const size = sizes[index % sizes.length]!
    yield buffer.subarray(at, at + size)
    at += size
  }
}

const sorted = (found: Map<number, number>) => [...found].sort((a, b) => a[0] - b[0])

describe('searchStream and searchText', () => {
  it('give the first line of each pattern, one match per pattern', async () => {
    const text = 'one\nTOKEN_VALUE here\nTOKEN_VALUE again\n\nlast API_KEY=1'
    const matcher = compileMatcher(['TOKEN_VALUE', 'API_KEY=1', 'absent-pattern'].map((p) => Buffer.from(p)))
    const expected = [
      [0, 2],
      [1, 5],
    ]
    expect(sorted(searchText(matcher, text))).toEqual(expected)
    expect(sorted(await searchStream(matcher, chunksOf(Buffer.from(text), [3])))).toEqual(expected)
  })

  it('finds nothing with no pattern', async () => {
    const matcher = compileMatcher([])
    expect(searchText(matcher, 'a\nb').size).toBe(0)
    const search = startSearch(matcher)
    search.push(Buffer.from('a\nb'))
    expect(search.end().size).toBe(0)
  })

  it('agree with indexOf however the input is cut (property)', async () => {
    // patterns of 8 bytes and more (the matcher's shortest), some cut from the input itself; inputs
    // of random bytes, or of lines that repeat so that a pattern occurs again on a later line
    const lines = fc
      .array(fc.constantFrom('needle-one', 'x needle-two', 'a', ''), { maxLength: 12 })
      .map((parts) => parts.join('\n'))
    const input = fc.oneof(fc.stringMatching(/^[a\n]{0,80}$/), lines)
    const case_ = input.chain((input) =>
      fc.record({
        input: fc.constant(input),
        patterns: fc.uniqueArray(
          fc.oneof(
            fc.stringMatching(/^[a\n]{8,10}$/),
            fc.constantFrom('needle-one', 'needle-two', 'one\nx needle'),
            fc
              .integer({ min: 0, max: Math.max(0, input.length - 8) })
              .map((at) => input.slice(at, at + 8).padEnd(8, 'a')),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        sizes: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }),
      }),
    )
    await fc.assert(
      fc.asyncProperty(case_, async ({ input, patterns, sizes }) => {
        const matcher = compileMatcher(patterns.map((p) => Buffer.from(p)))
        const expected = sorted(reference(patterns, input))
        expect(sorted(searchText(matcher, input))).toEqual(expected)
        expect(sorted(await searchStream(matcher, chunksOf(Buffer.from(input), sizes)))).toEqual(expected)
      }),
      { seed: 37, numRuns: 500 },
    )
  })
})
