import { describe, expect, it } from 'vitest'
import { RateLimiter } from '../../../../src/server/http/rate-limiter.js'

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
