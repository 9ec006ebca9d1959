import { describe, expect, it } from 'vitest'
import { LoginThrottle } from '../../../../src/server/tokens/login-throttle.js'

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
