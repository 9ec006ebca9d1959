/**
 * A global budget of bytes the proxy holds on behalf of clients (the heads they have not finished, the
 * masked answers they have not read). Each holder reserves what it holds; when the total passes the
 * budget, the holders that may be evicted are closed, the largest first, until it fits again: a client
 * that stalls while holding much loses its connection, one that holds little (an ordinary request, an
 * answer being read) is not touched. When no evictable holder holds more than the one asking would, the
 * reservation is refused instead.
 */

/** Something holding bytes against the budget. */
export interface Holder {
  /** Adds `bytes` to what this holder holds; false when the budget cannot make room (nothing was added). */
  reserve(bytes: number): boolean
  /** Gives everything this holder holds back. */
  release(): void
  /** Whether the budget may close this holder to make room (it waits on its client). */
  evictable: boolean
  readonly bytes: number
}

export interface HeldBudget {
  /** A new holder; `evict` closes what it belongs to (and must lead to its `release`). */
  holder(evict: () => void): Holder
  /** Bytes held in total (for logs and tests). */
  readonly held: number
  /** Holders closed to make room so far. */
  readonly evictions: number
  /**
   * Notes `bytes` of garbage left by holding (the copies masking makes of an answer): every
   * `garbageBytes` of it, a full collection runs, so a burst of large answers does not pile up
   * unreachable copies faster than V8 collects them on its own.
   */
  discarded(bytes: number): void
}

/** A budget of `limit` bytes; `collect` (exposed-gc.ts) runs after each `garbageBytes` discarded. */
export function createHeldBudget(
  limit: number,
  garbage: { collect: (() => void) | null; garbageBytes: number } = { collect: null, garbageBytes: 0 },
): HeldBudget {
  const holders = new Set<Holder & { evict: () => void }>()
  let held = 0
  let evictions = 0
  let discarded = 0
  const largestEvictable = (except: Holder) => {
    let largest: (Holder & { evict: () => void }) | undefined
    for (const holder of holders)
      if (holder !== except && holder.evictable && holder.bytes > (largest?.bytes ?? 0)) largest = holder
    return largest
  }
  return {
    get held() {
      return held
    },
    get evictions() {
      return evictions
    },
    discarded(bytes) {
      discarded += bytes
      if (!garbage.collect || discarded < garbage.garbageBytes) return
      discarded = 0
      garbage.collect()
    },
    holder(evict) {
      let bytes = 0
      const holder = {
        evictable: false,
        evict,
        get bytes() {
          return bytes
        },
        reserve(more: number): boolean {
          while (held + more > limit) {
            const victim = largestEvictable(holder)
            if (!victim || victim.bytes < bytes + more) return false
            evictions++
            victim.release()
            victim.evict()
          }
          held += more
          bytes += more
          holders.add(holder)
          return true
        },
        release() {
          held -= bytes
          bytes = 0
          holders.delete(holder)
        },
      }
      return holder
    },
  }
}
