/**
 * The streaming masker of `vault run` fuzzed against a trivially correct reference (at each byte, the
 * longest value that starts there, by direct comparison with every value). Value sets are hostile:
 * tiny alphabets so values overlap and are prefixes of each other, repeated characters, values that
 * hold the mask text, multi-byte UTF-8, values under 4 characters (never masked). Output mixes those
 * values, their fragments and noise; it is fed in random chunkings (one byte per chunk up to several
 * times the longest value, so that both the joined path and the seam path of `push` run), with
 * `release` calls between chunks. The property: the concatenated output equals the reference, and no
 * maskable value is in it (unless it holds '*', which the mask text itself can re-form). Seeded, so a failure names a reproducible case.
 */
import { describe, expect, it } from 'vitest'
import { OutputMasker } from '../../../src/masking/output-mask.js'
import { maskText } from '../../../src/text/mask-text.js'

const maskBytes = Buffer.from(maskText)

/** Leftmost-longest masking by brute force: the rule the masker documents. */
function referenceMask(text: Buffer, values: string[]): Buffer {
  const patterns = [...new Set(values)]
    .filter((value) => value.length >= 4)
    .map((value) => Buffer.from(value))
  const out: Buffer[] = []
  let emitted = 0
  for (let index = 0; index < text.length;) {
    let best = 0
    for (const pattern of patterns) {
      const end = index + pattern.length
      if (pattern.length > best && end <= text.length && text.subarray(index, end).equals(pattern))
        best = pattern.length
    }
    if (best === 0) {
      index++
      continue
    }
    out.push(text.subarray(emitted, index), maskBytes)
    index += best
    emitted = index
  }
  out.push(text.subarray(emitted))
  return Buffer.concat(out)
}

function random(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 4294967296
  }
}

const alphabets = [
  ['a', 'b'],
  ['a'],
  ['x', 'y', 'z', '-'],
  ['*', 'a', maskText],
  ['é', '☃', '🔑', 'a'],
  ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
]

function generateCase(next: () => number): { values: string[]; output: string } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const alphabet = pick(alphabets)
  const word = (length: number) => Array.from({ length }, () => pick(alphabet)).join('')
  const values = Array.from({ length: 1 + Math.floor(next() * 8) }, () => word(1 + Math.floor(next() * 14)))
  if (next() < 0.3) values.push(`${values[0]}${word(1 + Math.floor(next() * 4))}`)
  if (next() < 0.2) values.push(`k${maskText}k`)
  const parts: string[] = []
  for (let i = Math.floor(next() * 40); i > 0; i--) {
    const value = pick(values)
    const roll = next()
    if (roll < 0.4) parts.push(value)
    else if (roll < 0.6) parts.push(value.slice(0, Math.floor(next() * value.length)))
    else if (roll < 0.7) parts.push(value.slice(Math.floor(next() * value.length)))
    else parts.push(word(Math.floor(next() * 6)))
  }
  return { values, output: parts.join('') }
}

function maskInChunks(output: Buffer, values: string[], next: () => number): Buffer {
  const masker = new OutputMasker(values)
  const longest = Math.max(...values.map((value) => Buffer.byteLength(value)))
  const pieces: Buffer[] = []
  for (let offset = 0; offset < output.length;) {
    const size = 1 + Math.floor(next() * longest * (next() < 0.5 ? 1 : 4))
    pieces.push(...masker.pushPieces(output.subarray(offset, offset + size)))
    offset += size
    if (next() < 0.2) pieces.push(masker.release())
  }
  pieces.push(masker.end())
  return Buffer.concat(pieces)
}

describe('output masking against a brute-force reference', () => {
  it('equals the reference for 4000 hostile value sets and outputs, each in random chunkings', () => {
    const started = Date.now()
    let compared = 0
    for (let seed = 1; seed <= 4000 && Date.now() - started < 20_000; seed++) {
      const next = random(seed)
      const { values, output } = generateCase(next)
      const bytes = Buffer.from(output)
      const expected = referenceMask(bytes, values)
      for (let chunking = 0; chunking < 3; chunking++) {
        const masked = maskInChunks(bytes, values, next)
        if (!masked.equals(expected)) {
          expect({ seed, chunking, values, output, masked: masked.toString() }).toEqual({
            seed,
            chunking,
            values,
            output,
            masked: expected.toString(),
          })
        }
        compared++
      }
      // a value holding '*' can be re-formed by the mask text and its neighbours: not a leak
      for (const value of values.filter((candidate) => candidate.length >= 4 && !candidate.includes('*')))
        expect(expected.includes(Buffer.from(value)), `seed ${seed}: ${value}`).toBe(false)
    }
    expect(compared).toBeGreaterThan(3000)
  })
})
