import { describe, expect, it } from 'vitest'
import { escapeControls } from '../../../src/server/audit/audit-text.js'
import { sourceKey } from '../../../src/server/http/client-address.js'
import { LoginThrottle } from '../../../src/server/tokens/login-throttle.js'
import { RateLimiter } from '../../../src/server/http/rate-limiter.js'

describe('RateLimiter', () => {
  it('refuses past the limit and tells how long to wait', () => {
    const limiter = new RateLimiter({ perMinute: 2 })
    expect(limiter.take('a', 0)).toBe(0)
    expect(limiter.take('a', 1000)).toBe(0)
    expect(limiter.take('a', 2000)).toBe(58)
    expect(limiter.take('b', 2000)).toBe(0)
    expect(limiter.take('a', 60_001)).toBe(0)
  })

  it('keeps counting a refused sender while it rotates through fresh addresses (evicts the oldest, never clears)', () => {
    const limiter = new RateLimiter({ perMinute: 3, maxKeys: 100 })
    for (let i = 0; i < 3; i++) limiter.take('attacker', i)
    for (let i = 0; i < 5000; i++) {
      limiter.take(`fresh-${i}`, 10 + i)
      if (i % 10 === 0) expect(limiter.take('attacker', 10 + i)).toBeGreaterThan(0)
    }
    expect(limiter.size).toBeLessThanOrEqual(100)
  })
})

describe('LoginThrottle', () => {
  const pair = { clientId: 'vc_x', ip: '127.0.0.2' }

  it('lets the first failures through, then makes each attempt wait 1, 2, 4 ... seconds up to the cap', () => {
    const throttle = new LoginThrottle({ threshold: 3, maxDelaySeconds: 8 })
    const delays = Array.from({ length: 8 }, () => throttle.failed(pair, 0))
    expect(delays).toEqual([0, 0, 1, 2, 4, 8, 8, 8])
    expect(throttle.wait(pair, 0)).toBe(8)
    expect(throttle.wait(pair, 8000)).toBe(0)
  })

  it('keeps pairs apart: failures from one source never slow the same client id from another', () => {
    const throttle = new LoginThrottle({ threshold: 1, maxDelaySeconds: 60 })
    for (let i = 0; i < 10; i++) throttle.failed(pair, 0)
    expect(throttle.wait(pair, 0)).toBeGreaterThan(0)
    expect(throttle.wait({ ...pair, ip: '127.0.0.3' }, 0)).toBe(0)
    throttle.succeeded(pair)
    expect(throttle.wait(pair, 0)).toBe(0)
  })
})

describe('escapeControls', () => {
  it.each([
    ['ESC and BEL of a title change', '\u001b]0;pwned\u0007', '\\x1b]0;pwned\\x07'],
    ['a newline faking a row', 'id\nFAKE', 'id\\x0aFAKE'],
    ['a C1 CSI', 'a\u009b2Jb', 'a\\x9b2Jb'],
    ['DEL', 'a\u007f', 'a\\x7f'],
    ['a bidi override', 'a\u202eb', 'a\\u202eb'],
    ['a backslash (kept unambiguous)', 'a\\x1b', 'a\\\\x1b'],
    ['plain text', 'vc_0123 café', 'vc_0123 café'],
  ])('escapes %s', (_label, input, expected) => {
    expect(escapeControls(input)).toBe(expected)
  })
})

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
