import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ChunkSearch, compileMatcher } from '../../../src/scan/matcher.js'

/** Every (pattern, start) by indexOf: the reference the matcher is compared with. */
function naive(patterns: Buffer[], text: Buffer): Array<[number, number]> {
  const found: Array<[number, number]> = []
  patterns.forEach((pattern, index) => {
    for (let at = text.indexOf(pattern); at !== -1; at = text.indexOf(pattern, at + 1))
      found.push([index, at])
  })
  return found.sort((a, b) => a[1] - b[1] || a[0] - b[0])
}

function search(patterns: Buffer[], text: Buffer, chunkSizes: number[]): Array<[number, number]> {
  const found: Array<[number, number]> = []
  const chunks = new ChunkSearch(compileMatcher(patterns), (pattern, offset) => found.push([pattern, offset]))
  let at = 0
  for (let index = 0; at < text.length; index++) {
    const size = Math.max(1, chunkSizes[index % Math.max(1, chunkSizes.length)] ?? text.length)
    chunks.push(text.subarray(at, at + size))
    at += size
  }
  chunks.end()
  return found.sort((a, b) => a[1] - b[1] || a[0] - b[0])
}

describe('scan matcher', () => {
  it.each([
    ['one pattern in one chunk', ['password1'], 'xx password1 yy', [100]],
    ['a pattern split over chunks of one byte', ['password1'], 'xx password1 yy', [1]],
    [
      'overlapping patterns, one inside another',
      ['abcdefgh', 'abcdefghij', 'cdefghij'],
      '__abcdefghij__',
      [3],
    ],
    ['a pattern at the very start and end', ['12345678'], '12345678-12345678', [5, 7]],
    ['repeated, overlapping occurrences', ['aaaaaaaa'], 'aaaaaaaaaa', [4]],
    ['nothing', ['zzzzzzzz'], 'aaaaaaaaaaaaaaaaaa', [2]],
  ])('%s', (_case, patterns, text, sizes) => {
    const buffers = patterns.map((pattern) => Buffer.from(pattern))
    expect(search(buffers, Buffer.from(text), sizes)).toEqual(naive(buffers, Buffer.from(text)))
  })

  it('finds exactly what indexOf finds, for any patterns, text and chunking', () => {
    const alphabet = fc.constantFrom(...'ab\nc')
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: alphabet, minLength: 8, maxLength: 14 }), { minLength: 1, maxLength: 6 }),
        fc.string({ unit: alphabet, maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 5 }),
        (patterns, text, sizes) => {
          const unique = [...new Set(patterns)].map((pattern) => Buffer.from(pattern))
          const planted = Buffer.from(text + unique.map(String).join('|'))
          expect(search(unique, planted, sizes)).toEqual(naive(unique, planted))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('gives the line each occurrence starts on, across chunks', () => {
    const lines: number[] = []
    const chunks = new ChunkSearch(compileMatcher([Buffer.from('secret-1')]), (_p, _o, line) =>
      lines.push(line),
    )
    for (const chunk of ['a\nb secret-1\n', '\n\nsecr', 'et-1 secret-1\nsecret-1'])
      chunks.push(Buffer.from(chunk))
    chunks.end()
    expect(lines).toEqual([2, 5, 5, 6])
  })

  it('refuses a pattern under 8 bytes', () => {
    expect(() => compileMatcher([Buffer.from('short')])).toThrow(RangeError)
  })

  it('holds back at most the longest pattern between chunks', () => {
    const chunks = new ChunkSearch(compileMatcher([Buffer.from('0123456789')]), () => undefined)
    chunks.push(Buffer.alloc(1 << 20, 0x61))
    expect((chunks as unknown as { carry: Buffer }).carry.length).toBeLessThan(10)
  })
})
