import { describe, expect, it } from 'vitest'
import {
  deriveKey,
  keyFingerprint,
  open,
  parseHexKey,
  randomKey,
  seal,
} from '../../../src/crypto/envelope.js'

describe('envelope encryption', () => {
  const key = randomKey()

  it.each(['', 'x', 'a value with ünïcödé €', 'x'.repeat(65536)])('round-trips %#', (value) => {
    expect(open(key, seal(key, Buffer.from(value), 'aad'), 'aad').toString()).toBe(value)
  })

  it('uses a fresh nonce for each seal', () => {
    expect(seal(key, Buffer.from('same'), 'aad')).not.toBe(seal(key, Buffer.from('same'), 'aad'))
  })

  const sealed = seal(key, Buffer.from('canary-envelope-value'), 'secret|p|dev|NAME|1')
  const flipped = (index: number) => {
    const raw = Buffer.from(sealed.slice(3), 'base64')
    raw[index]! ^= 0x80
    return `v1.${raw.toString('base64')}`
  }
  it.each([
    ['another associated data (row moved)', key, sealed, 'secret|p|dev|NAME|2'],
    ['another key', randomKey(), sealed, 'secret|p|dev|NAME|1'],
    ['a flipped nonce bit', key, flipped(0), 'secret|p|dev|NAME|1'],
    ['a flipped tag bit', key, flipped(14), 'secret|p|dev|NAME|1'],
    ['a flipped ciphertext bit', key, flipped(30), 'secret|p|dev|NAME|1'],
    ['a truncated text', key, sealed.slice(0, 20), 'secret|p|dev|NAME|1'],
    ['an unknown format', key, `v9.${sealed.slice(3)}`, 'secret|p|dev|NAME|1'],
  ])('refuses %s with an integrity error that holds no plaintext', (_label, useKey, text, aad) => {
    let caught: unknown
    try {
      open(useKey, text, aad)
    } catch (error) {
      caught = error
    }
    expect(caught).toMatchObject({ name: 'IntegrityError', code: 'ERR_INTEGRITY' })
    expect(String((caught as Error).message)).not.toContain('canary')
  })

  it.each([
    [undefined, /ENCRYPTION_KEY is not set/],
    ['abc', /ENCRYPTION_KEY must be exactly 64 hexadecimal characters .* got 3 characters/],
    ['g'.repeat(64), /must be exactly 64 hexadecimal/],
  ])('rejects the key %j naming the variable but not the value', (text, message) => {
    expect(() => parseHexKey(text, 'ENCRYPTION_KEY')).toThrow(message)
  })

  it('fingerprints and derives deterministically and distinctly', () => {
    const hex = 'ab'.repeat(32)
    expect(parseHexKey(hex, 'K')).toEqual(Buffer.from(hex, 'hex'))
    expect(keyFingerprint(key)).toMatch(/^[0-9a-f]{16}$/)
    expect(keyFingerprint(key)).toBe(keyFingerprint(Buffer.from(key)))
    expect(keyFingerprint(key)).not.toBe(keyFingerprint(randomKey()))
    expect(deriveKey(key, 'a')).toEqual(deriveKey(key, 'a'))
    expect(deriveKey(key, 'a')).not.toEqual(deriveKey(key, 'b'))
  })
})
