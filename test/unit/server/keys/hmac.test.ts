/**
 * HMAC-SHA256 under a server key, its KeyObject made once per key Buffer: the MAC must be the one
 * RFC 4231 gives (test cases 1, 2 and 6) and the one createHmac gives with the raw key, for each key
 * while several are in use.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { hmacSha256 } from '../../../../src/server/keys/hmac.js'

describe('hmacSha256', () => {
  it.each([
    [
      Buffer.alloc(20, 0x0b),
      Buffer.from('Hi There'),
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    ],
    [
      Buffer.from('Jefe'),
      Buffer.from('what do ya want for nothing?'),
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    ],
    [
      Buffer.alloc(131, 0xaa),
      Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'),
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    ],
  ])('gives the RFC 4231 MAC (key of %#)', (key, data, mac) => {
    expect(hmacSha256(key).update(data).digest('hex')).toBe(mac)
    expect(hmacSha256(key).update(data).digest('hex')).toBe(mac)
  })

  it('keeps each key its own MAC while several are in use', () => {
    const keys = Array.from({ length: 5 }, () => randomBytes(32))
    for (let round = 0; round < 3; round++) {
      for (const key of keys) {
        expect(hmacSha256(key).update('message').digest('hex')).toBe(
          createHmac('sha256', key).update('message').digest('hex'),
        )
      }
    }
    const equalContent = Buffer.from(keys[0]!)
    expect(hmacSha256(equalContent).update('m').digest('hex')).toBe(
      hmacSha256(keys[0]!).update('m').digest('hex'),
    )
  })
})
