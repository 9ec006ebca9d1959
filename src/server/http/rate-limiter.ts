/**
 * A per-key request limit over a sliding minute, in memory (per process), in O(1) per request: the
 * count of the current fixed minute plus the previous minute's count weighted by how much of it the
 * sliding window still covers (the "sliding window counter"). The table is bounded: when it holds
 * `maxKeys` keys it forgets the least recently seen ones, so a sender rotating through fresh addresses
 * cannot reset the counts of everyone else (nor its own, while it keeps sending).
 */

export interface RateLimiterOptions {
  perMinute: number
  /** The most keys remembered (default 10,000). */
  maxKeys?: number
}

interface KeyWindow {
  /** Start (epoch ms) of the current fixed minute. */
  start: number
  current: number
  previous: number
}

const minute = 60_000

/** A per-key sliding-minute limiter that evicts the least recently seen keys first. */
export class RateLimiter {
  private readonly windows = new Map<string, KeyWindow>()
  private readonly perMinute: number
  private readonly maxKeys: number

  constructor(options: RateLimiterOptions) {
    this.perMinute = options.perMinute
    this.maxKeys = options.maxKeys ?? 10_000
  }

  /** Seconds to wait, or 0 when the request may proceed (and is counted). */
  take(key: string, now = Date.now()): number {
    const start = now - (now % minute)
    let window = this.windows.get(key)
    this.windows.delete(key)
    if (window === undefined || start - window.start >= 2 * minute)
      window = { start, current: 0, previous: 0 }
    else if (window.start !== start) window = { start, current: 0, previous: window.current }
    this.windows.set(key, window)
    while (this.windows.size > this.maxKeys) this.windows.delete(this.windows.keys().next().value!)
    const elapsed = now - start
    const estimate = window.previous * (1 - elapsed / minute) + window.current
    if (estimate >= this.perMinute) return Math.max(1, Math.ceil((minute - elapsed) / 1000))
    window.current += 1
    return 0
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.windows.size
  }
}
