import { describe, expect, it } from 'vitest'
import { sourceKey } from '../../../../src/server/http/client-address.js'

describe('sourceKey', () => {
  it.each([
    ['127.0.0.5', '127.0.0.5'],
    ['::ffff:127.0.0.5', '127.0.0.5'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['unknown', 'unknown'],
  ])('counts %s as %s', (address, key) => {
    expect(sourceKey(address)).toBe(key)
  })
})
