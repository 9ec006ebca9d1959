import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { charsets, generatePassword, randomSecret, type CharsetName } from '../../../src/crypto/password.js'
import { UsageError } from '../../../src/errors.js'
import { characterCounts, chiSquareCritical, chiSquareUniform } from '../../helpers/stats.js'

const names = Object.keys(charsets) as CharsetName[]

describe('generatePassword', () => {
  it.each(names)('draws %s characters uniformly (chi-square)', (name) => {
    const alphabet = charsets[name]
    const sample = generatePassword(alphabet.length * 2000, alphabet)
    const counts = characterCounts(sample, alphabet)
    expect(chiSquareUniform(counts)).toBeLessThan(chiSquareCritical(alphabet.length - 1))
  })

  it('the uniformity check catches a modulo-biased generator', () => {
    const alphabet = charsets.alnum
    const biased = [...randomBytes(alphabet.length * 2000)]
      .map((byte) => alphabet[byte % alphabet.length])
      .join('')
    const counts = characterCounts(biased, alphabet)
    expect(chiSquareUniform(counts)).toBeGreaterThan(chiSquareCritical(alphabet.length - 1))
  })

  it.each([1, 16, 32, 200])('returns exactly %i characters', (length) => {
    expect(generatePassword(length)).toHaveLength(length)
  })

  it('does not repeat itself', () => {
    const values = new Set(Array.from({ length: 1000 }, () => generatePassword()))
    expect(values.size).toBe(1000)
  })

  it.each([0, -1, 1.5, Number.NaN])('refuses length %s', (length) => {
    expect(() => generatePassword(length)).toThrow(UsageError)
  })

  it('refuses a charset with fewer than two distinct characters', () => {
    expect(() => generatePassword(20, 'aaaa')).toThrow(UsageError)
  })
})

describe('randomSecret', () => {
  it('gives 64 hex characters for 32 bytes', () => {
    expect(randomSecret(32, 'hex')).toMatch(/^[0-9a-f]{64}$/)
  })

  it('gives unpadded base64url', () => {
    expect(randomSecret(32, 'base64url')).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('refuses zero bytes', () => {
    expect(() => randomSecret(0)).toThrow(UsageError)
  })
})
