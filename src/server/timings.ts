/**
 * The vault server's clocks in one object, in got's shape (`timeout: { request, ... }`): how long
 * human sessions live, how often the change feed polls and sends its heartbeat, how often the webhook
 * worker looks for due deliveries and how long it waits before retrying one, and how often the
 * in-memory count of failed authentications is written to the audit log. Production uses `defaultTimings`; a caller (a test, an embedding) passes
 * `ServerConfig.timings` with only the durations it changes. Access-token lifetimes are a limit
 * (`VaultLimits.tokenTtlSeconds`, capped at an hour) and the webhook deadlines are per delivery
 * (`DeliveryRequest.timeoutMs`, `NewWebhook.lookupTimeoutMs`).
 */

export interface SessionTimings {
  /** A human session (console or `vault login --user`) ends after this long without a request. */
  idleSeconds: number
  /** A human session ends this long after sign-in, however busy. */
  maxSeconds: number
}

export interface FeedTimings {
  /** How often the store is polled for new changes. */
  pollMs: number
  /** How often an idle stream gets a comment line. */
  heartbeatMs: number
}

export interface WebhookTimings {
  /** How often the worker looks for due deliveries when nothing pokes it. */
  pollMs: number
  /** The wait before the first retry of a failed delivery; it doubles with each further failure... */
  retryBaseMs: number
  /** ...up to this. */
  retryMaxMs: number
}

export interface VaultTimings {
  session: SessionTimings
  feed: FeedTimings
  webhook: WebhookTimings
  /** How often failed authentications counted in memory are written to the audit log. */
  failedAuthFlushMs: number
}

/** What a caller may pass: any subset, nested objects included. */
export interface TimingOverrides {
  session?: Partial<SessionTimings>
  feed?: Partial<FeedTimings>
  webhook?: Partial<WebhookTimings>
  failedAuthFlushMs?: number
}

export const defaultTimings: VaultTimings = Object.freeze({
  session: Object.freeze({ idleSeconds: 30 * 60, maxSeconds: 12 * 60 * 60 }),
  feed: Object.freeze({ pollMs: 1000, heartbeatMs: 15_000 }),
  webhook: Object.freeze({ pollMs: 1000, retryBaseMs: 1000, retryMaxMs: 10 * 60 * 1000 }),
  failedAuthFlushMs: 60_000,
})

/** The defaults with `overrides` laid over them (each duration must be a finite number ≥ 0). */
export function resolveTimings(overrides: TimingOverrides = {}): VaultTimings {
  const timings: VaultTimings = {
    session: { ...defaultTimings.session, ...overrides.session },
    feed: { ...defaultTimings.feed, ...overrides.feed },
    webhook: { ...defaultTimings.webhook, ...overrides.webhook },
    failedAuthFlushMs: overrides.failedAuthFlushMs ?? defaultTimings.failedAuthFlushMs,
  }
  const durations: [string, number][] = [
    ['session.idleSeconds', timings.session.idleSeconds],
    ['session.maxSeconds', timings.session.maxSeconds],
    ['feed.pollMs', timings.feed.pollMs],
    ['feed.heartbeatMs', timings.feed.heartbeatMs],
    ['webhook.pollMs', timings.webhook.pollMs],
    ['webhook.retryBaseMs', timings.webhook.retryBaseMs],
    ['webhook.retryMaxMs', timings.webhook.retryMaxMs],
    ['failedAuthFlushMs', timings.failedAuthFlushMs],
  ]
  for (const [name, value] of durations)
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`timings.${name} must be a duration ≥ 0`)
  return timings
}
