/**
 * Failed authentications (bad or expired bearer tokens, revoked tokens, failed logins) are audited at
 * most once per source (an address, or an IPv6 /64) and project per minute: the first failure of a minute writes its row,
 * later ones of the same minute are only counted, and the count is written with the source's next row
 * or by `flush()` (every minute, and at shutdown). A flood of bad tokens therefore costs one fsync'd
 * row a minute per source, not one per request.
 */
import { appendAudit, recordAudit, type AuditEvent } from '../audit/audit.js'
import { sourceKey } from '../http/client-address.js'
import type { SqlDriver, SqlExecutor } from '../store/index.js'

interface SourceWindow {
  minute: number
  /** Failures counted but not written since the last row of this source. */
  coalesced: number
  /** The event that stands for the coalesced ones. */
  last: AuditEvent
}

/** The coalescing writer of failed-authentication audit events. */
export class FailedAuthLog {
  private readonly windows = new Map<string, SourceWindow>()
  private readonly maxSources: number

  constructor(
    private readonly store: { driver: SqlDriver; auditKey: Buffer },
    options: { maxSources?: number } = {},
  ) {
    this.maxSources = options.maxSources ?? 10_000
  }

  /**
   * Records a failed authentication (`event.ip` is the source). Writes a row in `tx` when given,
   * else in its own transaction, unless this source already has one this minute; returns whether a
   * row was written.
   */
  async record(event: AuditEvent, tx?: SqlExecutor, now = Date.now()): Promise<boolean> {
    const key = `${sourceKey(event.ip ?? '')}\n${event.projectId ?? ''}`
    const minute = Math.floor(now / 60_000)
    const window = this.windows.get(key)
    this.windows.delete(key)
    if (window && window.minute === minute) {
      window.coalesced += 1
      window.last = event
      this.windows.set(key, window)
      return false
    }
    const earlier = window?.coalesced ?? 0
    const detail =
      earlier > 0 ? `${event.detail ?? ''} (+${earlier} coalesced earlier)`.trim() : (event.detail ?? null)
    const row = { ...event, detail }
    this.windows.set(key, { minute, coalesced: 0, last: event })
    const rows: AuditEvent[] = [row]
    while (this.windows.size > this.maxSources) {
      const [oldest, dropped] = this.windows.entries().next().value!
      this.windows.delete(oldest)
      if (dropped.coalesced > 0) rows.push(summaryOf(dropped))
    }
    for (const each of rows) {
      if (tx) await appendAudit(tx, this.store.auditKey, each)
      else await recordAudit(this.store.driver, this.store.auditKey, each)
    }
    return true
  }

  /**
   * Writes one summary row for each source of an earlier minute whose coalesced failures have not
   * been written yet (`Infinity`: every source, at shutdown).
   */
  async flush(now = Date.now()): Promise<void> {
    const minute = Math.floor(now / 60_000)
    for (const [key, window] of [...this.windows]) {
      if (window.minute >= minute) continue
      if (window.coalesced === 0) {
        this.windows.delete(key)
        continue
      }
      await recordAudit(this.store.driver, this.store.auditKey, summaryOf(window))
      // the summary is this source's row of the current minute
      window.minute = minute
      window.coalesced = 0
    }
  }
}

function summaryOf(window: SourceWindow): AuditEvent {
  return {
    ...window.last,
    requestId: null,
    detail: `${window.coalesced} more like: ${window.last.detail ?? window.last.action}`,
  }
}
