/**
 * The change-feed client's production clocks (src/client/events.ts), in a module of their own so that
 * --watch can name them without loading the feed's client before it needs it.
 */
export interface FollowTimings {
  /** The wait before reconnecting: `initialMs`, doubled after each failure up to `maxMs` (±20% jitter). */
  backoff: { initialMs: number; maxMs: number }
  /** Reconnect when nothing (not even a heartbeat) arrived for this long: three of the server's heartbeats. */
  silenceMs: number
}

export const defaultFollowTimings: FollowTimings = Object.freeze({
  backoff: Object.freeze({ initialMs: 500, maxMs: 30_000 }),
  silenceMs: 45_000,
})
