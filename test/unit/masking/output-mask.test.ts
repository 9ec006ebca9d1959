import { describe, expect, it } from 'vitest'
import { maskableValues, maskWhole, OutputMasker } from '../../../src/masking/output-mask.js'
import { maskText } from '../../../src/text/mask-text.js'

/** The reference rule: left to right, at each position the longest value starting there, else one byte. */
function referenceMask(text: Buffer, values: string[]): Buffer {
  const patterns = maskableValues(values).masked.map((value) => Buffer.from(value, 'utf8'))
  const pieces: Buffer[] = []
  let index = 0
  let plainStart = 0
  while (index < text.length) {
    let longest = 0
    for (const pattern of patterns) {
      if (pattern.length > longest && text.subarray(index, index + pattern.length).equals(pattern)) {
        longest = pattern.length
      }
    }
    if (longest === 0) {
      index++
      continue
    }
    pieces.push(text.subarray(plainStart, index), Buffer.from(maskText))
    index += longest
    plainStart = index
  }
  pieces.push(text.subarray(plainStart))
  return Buffer.concat(pieces)
}

/** A small deterministic PRNG (mulberry32) so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function maskInChunks(text: Buffer, values: string[], cuts: number[]): Buffer {
  const masker = new OutputMasker(values)
  const out: Buffer[] = []
  let previous = 0
  for (const cut of [...cuts, text.length]) {
    out.push(masker.push(text.subarray(previous, cut)))
    previous = cut
  }
  out.push(masker.end())
  return Buffer.concat(out)
}

const alphabet = ['a', 'b', 'c', ' ', '\n', 'ä', '🔑']

describe('OutputMasker', () => {
  it.each([
    ['a value in the middle', 'x hunter22 y', ['hunter22'], 'x ******** y'],
    ['two adjacent values', 'hunter22hunter22', ['hunter22'], '****************'],
    ['the longest value at the leftmost position', 'abcdefgh', ['abcd', 'abcdefgh'], '********'],
    ['the leftmost value before a longer later one', 'xabcdefg', ['abcd', 'bcdefg'], 'x********efg'],
    ['a value inside a longer one', '_passwordX_', ['password', 'sword'], '_********X_'],
    ['overlapping occurrences (non-overlapping matches)', 'aaaaa', ['aaaa'], '********a'],
    ['values shorter than 4 characters are left alone', 'abc xyz', ['abc', 'xyz'], 'abc xyz'],
    ['a multi-byte value', 'pw: pässwörd.', ['pässwörd'], 'pw: ********.'],
    ['no values at all', 'plain', [], 'plain'],
  ])('masks %s', (_name, text, values, expected) => {
    expect(maskWhole(Buffer.from(text), values).toString()).toBe(expected)
    expect(referenceMask(Buffer.from(text), values).toString()).toBe(expected)
  })

  it('finds a value split across every possible pair of chunks', () => {
    const text = Buffer.from('before s3cr3t-value after')
    for (let cut = 0; cut <= text.length; cut++) {
      expect(maskInChunks(text, ['s3cr3t-value'], [cut]).toString()).toBe('before ******** after')
    }
  })

  it('finds a value delivered one byte at a time', () => {
    const text = Buffer.from('a s3cr3t-value, s3cr3t again')
    const cuts = Array.from({ length: text.length }, (_, index) => index)
    expect(maskInChunks(text, ['s3cr3t-value', 's3cr3t'], cuts).toString()).toBe('a ********, ******** again')
  })

  it('holds back no more than the longest value minus one byte', () => {
    const masker = new OutputMasker(['abcdefgh', 'abcd'])
    let total = 0
    let shown = 0
    for (const piece of ['xxxxabcdefg', 'Z', 'yyyyyyyyyyyy', 'abc']) {
      total += piece.length
      shown += masker.push(Buffer.from(piece)).length
      expect(total - shown).toBeLessThanOrEqual(7)
    }
    expect(masker.end().toString()).toBe('abc')
  })

  it('gives for random chunkings of random output exactly what masking the whole output gives', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const next = random(seed)
      const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!
      const word = (length: number) => Array.from({ length }, () => pick(alphabet)).join('')
      const values = Array.from({ length: 1 + Math.floor(next() * 5) }, () =>
        word(2 + Math.floor(next() * 7)),
      )
      const parts: string[] = []
      for (let i = 0; i < 30; i++) parts.push(next() < 0.4 ? pick(values) : word(Math.floor(next() * 6)))
      const text = Buffer.from(parts.join(''))
      const cuts = Array.from({ length: Math.floor(next() * 12) }, () =>
        Math.floor(next() * (text.length + 1)),
      )
      cuts.sort((a, b) => a - b)
      const expected = referenceMask(text, values)
      const actual = maskInChunks(text, values, cuts)
      expect({ seed, output: actual.toString('latin1') }).toEqual({
        seed,
        output: expected.toString('latin1'),
      })
    }
  })

  it('never lets a masked value through, whatever the chunking (canary)', () => {
    const canary = 'CANARY-7f3a9c-do-not-print'
    for (let seed = 1; seed <= 100; seed++) {
      const next = random(seed)
      const text = Buffer.from(`log ${canary} x ${canary}${canary} end ${canary.slice(0, 10)}`)
      const cuts = Array.from({ length: 8 }, () => Math.floor(next() * (text.length + 1))).sort(
        (a, b) => a - b,
      )
      const output = maskInChunks(text, [canary], cuts).toString()
      expect(output).not.toContain(canary)
      expect(output).toContain(canary.slice(0, 10))
    }
  })
})

describe('OutputMasker.cut', () => {
  it.each([
    ['a held-back tail that is not a value', 'log line\n', 'log line\n'],
    ['a tail that begins a value', 'log s3cr3t-va', 'log ********'],
    ['a whole value followed by the start of another', 'x s3cr3t-value s3c', 'x ******** ********'],
  ])('shows %s without any part of a value', (_name, text, expected) => {
    const masker = new OutputMasker(['s3cr3t-value'])
    const shown = masker.push(Buffer.from(text))
    expect(Buffer.concat([shown, masker.cut()]).toString()).toBe(expected)
  })
})

describe('OutputMasker.release', () => {
  it('shows a paused line at once, holding back only what could still begin a value', () => {
    const masker = new OutputMasker(['s3cr3t-value'])
    const line = 'server ready on port 8080\n'
    const shown = masker.push(Buffer.from(line)).toString()
    expect(shown.length).toBeLessThan(line.length)
    expect(shown + masker.release().toString()).toBe(line)
    expect(masker.push(Buffer.from('pw: s3cr')).toString()).toBe('')
    expect(masker.release().toString()).toBe('pw: ')
    expect(masker.push(Buffer.from('3t-value!')).toString() + masker.end().toString()).toBe('********!')
  })

  it('keeps the whole-output result when releases come between random chunks', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed)
      const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!
      const word = (length: number) => Array.from({ length }, () => pick(alphabet)).join('')
      const values = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
        word(4 + Math.floor(next() * 5)),
      )
      const text = Buffer.from(
        Array.from({ length: 25 }, () => (next() < 0.4 ? pick(values) : word(Math.floor(next() * 5)))).join(
          '',
        ),
      )
      const masker = new OutputMasker(values)
      const out: Buffer[] = []
      for (let index = 0; index < text.length;) {
        const size = 1 + Math.floor(next() * 6)
        out.push(masker.push(text.subarray(index, index + size)))
        if (next() < 0.5) out.push(masker.release())
        index += size
      }
      out.push(masker.end())
      expect({ seed, output: Buffer.concat(out).toString('latin1') }).toEqual({
        seed,
        output: referenceMask(text, values).toString('latin1'),
      })
    }
  })
})
