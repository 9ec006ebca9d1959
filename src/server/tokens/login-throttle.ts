/**
 * Login throttling per (client id, source address), in memory: after `threshold` failed logins from
 * one source, each further attempt of that pair must wait 1 s, 2 s, 4 s ... up to `maxDelaySeconds`.
 * A client id that does not exist is throttled exactly like one that does, and a wrong secret sent from
 * elsewhere never slows the real client down. The table is bounded and forgets the oldest pairs first.
 */

export interface LoginThrottleOptions {
  threshold: number
  maxDelaySeconds: number
  maxKeys?: number
}

interface PairState {
  failures: number
  /** Epoch ms before which the next attempt is refused. */
  notBefore: number
}

/** Failed-login bookkeeping per (client id, source). */
export class LoginThrottle {
  private readonly pairs = new Map<string, PairState>()
  constructor(private readonly options: LoginThrottleOptions) {}

  private static key(pair: { clientId: string; ip: string }): string {
    return `${pair.ip}\n${pair.clientId}`
  }

  /** Seconds this pair must still wait before its next attempt, or 0. */
  wait(pair: { clientId: string; ip: string }, now = Date.now()): number {
    const state = this.pairs.get(LoginThrottle.key(pair))
    if (!state || state.notBefore <= now) return 0
    return Math.ceil((state.notBefore - now) / 1000)
  }

  /** Counts a failed attempt and returns the delay it earned, in seconds (0 below the threshold). */
  failed(pair: { clientId: string; ip: string }, now = Date.now()): number {
    const key = LoginThrottle.key(pair)
    const state = this.pairs.get(key) ?? { failures: 0, notBefore: 0 }
    this.pairs.delete(key)
    state.failures += 1
    const over = state.failures - this.options.threshold
    const delay = over < 0 ? 0 : Math.min(2 ** Math.min(over, 30), this.options.maxDelaySeconds)
    state.notBefore = now + delay * 1000
    this.pairs.set(key, state)
    const maxKeys = this.options.maxKeys ?? 10_000
    while (this.pairs.size > maxKeys) this.pairs.delete(this.pairs.keys().next().value!)
    return delay
  }

  /** Forgets a pair after a successful login. */
  succeeded(pair: { clientId: string; ip: string }): void {
    this.pairs.delete(LoginThrottle.key(pair))
  }
}
