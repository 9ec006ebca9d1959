/**
 * A sliding one-minute window of requests per key, in memory (per process), bounded in size: when it
 * holds `maxKeys` keys it forgets the least recently seen ones, so a sender rotating through fresh
 * addresses cannot reset the counts of everyone else.
 */

export interface RateLimiterOptions {
  perMinute: number
  /** The most keys remembered (default 10,000). */
  maxKeys?: number
}

/** A per-key sliding-window limiter that evicts the least recently seen keys first. */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>()
  private readonly perMinute: number
  private readonly maxKeys: number

  constructor(options: RateLimiterOptions) {
    this.perMinute = options.perMinute
    this.maxKeys = options.maxKeys ?? 10_000
  }

  /** Seconds to wait, or 0 when the request may proceed (and is counted). */
  take(key: string, now = Date.now()): number {
    const recent = (this.hits.get(key) ?? []).filter((at) => at > now - 60_000)
    this.hits.delete(key)
    if (recent.length >= this.perMinute) {
      this.hits.set(key, recent)
      return Math.max(1, Math.ceil((recent[0]! + 60_000 - now) / 1000))
    }
    recent.push(now)
    this.hits.set(key, recent)
    while (this.hits.size > this.maxKeys) this.hits.delete(this.hits.keys().next().value!)
    return 0
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.hits.size
  }
}
