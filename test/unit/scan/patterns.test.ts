import { describe, expect, it } from 'vitest'
import { buildPatternSet, encodingsOf } from '../../../src/scan/patterns.js'

const texts = (value: string, encoding: string) =>
  encodingsOf(value)
    .filter((entry) => entry.encoding === encoding)
    .map((entry) => entry.text.toString('latin1'))

describe('scan patterns', () => {
  const value = 'p@ss/w+rd "é" ?&=x1'

  it.each([
    ['alone', (bytes: Buffer) => bytes.toString('base64')],
    ['alone, without padding', (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '')],
    [
      'after 1 byte of a longer stream',
      (bytes: Buffer) => Buffer.concat([Buffer.from('x'), bytes, Buffer.from('tail')]).toString('base64'),
    ],
    [
      'after 2 bytes of a longer stream',
      (bytes: Buffer) => Buffer.concat([Buffer.from('xy'), bytes]).toString('base64'),
    ],
    [
      'after 3 bytes, followed by more',
      (bytes: Buffer) => Buffer.concat([Buffer.from('xyz'), bytes, Buffer.from('!')]).toString('base64'),
    ],
  ])('base64 of the value %s contains one of its patterns', (_case, encode) => {
    for (const candidate of [value, 'abcdefgh', 'abcdefghi', 'abcdefghij']) {
      const encoded = encode(Buffer.from(candidate))
      expect(texts(candidate, 'base64').some((pattern) => encoded.includes(pattern))).toBe(true)
      const url = encoded.replaceAll('+', '-').replaceAll('/', '_')
      expect(
        [...texts(candidate, 'base64url'), ...texts(candidate, 'base64')].some((p) => url.includes(p)),
      ).toBe(true)
    }
  })

  it('URL and JSON forms are the ones encoders write', () => {
    expect(texts(value, 'url')).toContain(encodeURIComponent(value))
    expect(texts(value, 'url')).toContain(
      encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    )
    expect(texts(value, 'json')).toContain(Buffer.from(JSON.stringify(value).slice(1, -1)).toString('latin1'))
    expect(texts(value, 'json')).toContain('p@ss/w+rd \\"\\u00e9\\" ?&=x1')
    expect(texts(value, 'json')).toContain(
      'p@ss\\/w+rd \\"é\\" ?&=x1'.replace('é', Buffer.from('é').toString('latin1')),
    )
  })

  it('an alphanumeric value is one plain pattern, not the same text under several names', () => {
    const encodings = encodingsOf('abcdefgh12').map((entry) => entry.encoding)
    expect(encodings.filter((encoding) => encoding === 'plain')).toHaveLength(1)
    expect(encodings).not.toContain('url')
    expect(encodings).not.toContain('json')
  })

  it('values under 8 characters are counted, not searched; shared values list every owner', () => {
    const set = buildPatternSet([
      { name: 'A', version: 1, current: false, value: 'short' },
      { name: 'A', version: 2, current: true, value: 'long-enough-1' },
      { name: 'B', version: 1, current: true, value: 'long-enough-1' },
      { name: 'C', version: 1, current: true, value: 'short' },
      { name: '__proto__', version: 1, current: true, value: 'tiny' },
    ])
    expect(set.tooShort).toBe(2)
    expect(set.values).toBe(1)
    const plain = set.patterns.findIndex((pattern) => pattern.toString() === 'long-enough-1')
    expect(set.owners[plain]).toEqual([
      { name: 'A', version: 2, current: true, encoding: 'plain' },
      { name: 'B', version: 1, current: true, encoding: 'plain' },
    ])
    expect(set.patterns.every((pattern) => pattern.length >= 8)).toBe(true)
  })
})
