/**
 * Debouncing of change events: names collected until none has arrived for `quietMs` (or `maxWaitMs`
 * has passed since the first), then handed over as one batch. A batch is never handed over while the
 * previous one is still being handled; changes arriving meanwhile form the next batch.
 */
export interface ChangeBatcher {
  add(name: string): void
  /** Resolves once no batch is pending or running (no new batch is started after this call). */
  close(): Promise<void>
}

/** Builds a batcher that calls `handle` with each batch of changed names. */
export function createChangeBatcher(
  handle: (names: string[]) => Promise<void>,
  timing: { quietMs: number; maxWaitMs: number },
): ChangeBatcher {
  let pending = new Set<string>()
  let firstAt = 0
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let closed = false

  const flush = () => {
    timer = undefined
    if (closed || pending.size === 0) return
    const names = [...pending].sort()
    pending = new Set()
    running = running.then(() => (closed ? undefined : handle(names)))
  }

  return {
    add(name) {
      if (closed) return
      if (pending.size === 0) firstAt = Date.now()
      pending.add(name)
      clearTimeout(timer)
      const wait = Math.min(timing.quietMs, Math.max(0, firstAt + timing.maxWaitMs - Date.now()))
      timer = setTimeout(flush, wait)
    },
    async close() {
      closed = true
      clearTimeout(timer)
      await running
    },
  }
}
