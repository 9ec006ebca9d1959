/**
 * New values keep the shape of a published default: Node's base64 codec is the oracle of how many bytes
 * a base64 sample holds and of whether a new value is well-formed base64 of the same size.
 */
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  newValue,
  newValueFor,
  newValueShaped,
  sampleShapeOf,
  valueShapeFor,
} from '../../../src/crypto/new-value.js'

describe('valueShapeFor', () => {
  it.each([
    ['AUTH_JWT_SECRET', 'hex32'],
    ['SECRET', 'hex32'],
    ['STORAGE_ENCRYPTION_KEY', 'hex32'],
    ['GITHUB_TOKEN', 'hex32'],
    ['PASSWORD_SALT', 'hex32'],
    ['MONKEY', 'password'],
    ['SECRET_KEY_BASE', 'password'],
    ['DB_PASSWORD', 'password'],
    ['api_key', 'password'],
    ['__proto__', 'password'],
  ])('%s is %s', (name, shape) => {
    expect(valueShapeFor(name)).toBe(shape)
  })
})

describe('sampleShapeOf and newValueShaped', () => {
  it('counts the bytes of a base64 default as Node decodes them, and makes new base64 of that size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 12, max: 200 }), (size) => {
        const sample = randomBytes(size).toString('base64')
        const shape = sampleShapeOf(sample)
        if (shape?.kind !== 'base64') return // no `+`, `/` or `=`: read as another alphabet
        expect(shape.bytes).toBe(Buffer.from(sample, 'base64').length)
        const fresh = newValueShaped(shape)
        expect(fresh).toHaveLength(sample.length)
        expect(Buffer.from(fresh, 'base64').toString('base64')).toBe(fresh)
        expect(Buffer.from(fresh, 'base64')).toHaveLength(size)
        expect(fresh).not.toBe(sample)
      }),
      { numRuns: 300 },
    )
  })

  it('keeps hex lower or upper case and the length', () => {
    const lower = 'a1b2'.repeat(16)
    expect(newValueShaped(sampleShapeOf(lower)!)).toMatch(/^[0-9a-f]{64}$/)
    expect(newValueShaped(sampleShapeOf(lower.toUpperCase())!)).toMatch(/^[0-9A-F]{64}$/)
  })

  it('keeps a mixed alphanumeric default alphanumeric, of its length', () => {
    const shape = sampleShapeOf('Abcdefgh1234567890XY')
    expect(shape).toEqual({ kind: 'alnum', length: 20 })
    expect(newValueShaped(shape!)).toMatch(/^[A-Za-z0-9]{20}$/)
  })

  it.each([
    ['a short default', 'abc123'],
    ['a word', 'changemechangeme'],
    ['one case of letters and digits', 'abcdefgh12345678'],
    ['padding in the middle', 'AAAA=AAAAAAAAAAA'],
    ['a base64 length that is no multiple of 4', 'AAAAAAAAAAAAAA+AA'],
    ['an oversized default', 'ab12'.repeat(1025)],
    ['control characters', 'ABCDEFGH12345678\n'],
  ])('keeps no shape of %s', (_, sample) => {
    expect(sampleShapeOf(sample)).toBeUndefined()
  })
})

describe('newValue', () => {
  it('gives 32 random bytes in hex for a key, a password of 32 alphanumerics otherwise', () => {
    expect(newValueFor('APP_SECRET')).toMatch(/^[0-9a-f]{64}$/)
    expect(newValueFor('DB_PASSWORD')).toMatch(/^[A-Za-z0-9]{32}$/)
    expect(newValueFor('DB_PASSWORD')).not.toBe(newValueFor('DB_PASSWORD'))
  })

  it('takes an explicit length over the shape of the default', () => {
    expect(newValue('hex32', 10, 'ab'.repeat(32))).toMatch(/^[0-9a-f]{10}$/)
    expect(newValue('password', 20, 'a1b2'.repeat(16))).toMatch(/^[A-Za-z0-9]{20}$/)
  })

  it('keeps the shape of the default when it has one', () => {
    expect(newValueFor('DB_PASSWORD', undefined, 'ab12'.repeat(16))).toMatch(/^[0-9a-f]{64}$/)
    expect(newValueFor('APP_KEY', undefined, 'changeme')).toMatch(/^[0-9a-f]{64}$/)
  })
})
