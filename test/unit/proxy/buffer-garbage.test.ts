/**
 * The check that bounds relayed answers' ArrayBuffer garbage (src/proxy/buffer-garbage.ts), on fake
 * timers with scripted byte counts: a full collection at each check above the limit and only there,
 * nothing without an exposed gc, nothing after stop(), and a timer that never holds the process open.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { boundBufferGarbage } from '../../../src/proxy/buffer-garbage.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('boundBufferGarbage', () => {
  it('collects at the checks that find more than the limit, and only those, until stopped', () => {
    const bytes = [1, 9, 8, 12, 9]
    let check = 0
    const collect = vi.fn()
    const bound = boundBufferGarbage({
      limitBytes: 8,
      intervalMs: 100,
      collect,
      arrayBufferBytes: () => bytes[check++]!,
    })
    vi.advanceTimersByTime(99)
    expect(check).toBe(0)
    vi.advanceTimersByTime(100 * 5)
    expect(check).toBe(5)
    expect(collect).toHaveBeenCalledTimes(3)
    expect(bound.collections()).toBe(3)
    bound.stop()
    vi.advanceTimersByTime(10_000)
    expect(check).toBe(5)
  })

  it('does nothing where gc is not exposed', () => {
    const arrayBufferBytes = vi.fn(() => 1 << 30)
    const bound = boundBufferGarbage({ collect: null, arrayBufferBytes })
    vi.advanceTimersByTime(10_000)
    expect(arrayBufferBytes).not.toHaveBeenCalled()
    expect(bound.collections()).toBe(0)
  })

  it('does not keep the process alive', () => {
    const setInterval = vi.spyOn(globalThis, 'setInterval')
    const bound = boundBufferGarbage({ collect: () => undefined, arrayBufferBytes: () => 0 })
    const timer = setInterval.mock.results[0]!.value as NodeJS.Timeout
    expect(timer.hasRef()).toBe(false)
    bound.stop()
    setInterval.mockRestore()
  })
})
