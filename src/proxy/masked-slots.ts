/**
 * How many answers held whole for masking are asked of the engine at once (the rest wait their turn,
 * first come first served, before their request is sent). Held answers cost the single thread a parse
 * and a serialisation each; 400 of them asked at once (100 clients, four pipelined requests each) kept
 * ordinary requests queued behind their work for 3-11 s. A few at a time leave room between them.
 */
import type { Exchange } from './exchange.js'

/** A queue of exchanges of which at most `size` run at once. */
export interface MaskedSlots {
  /**
   * Starts `start` when a slot is free: the exchange stands for it meanwhile (aborting it leaves the
   * queue); `done` frees the slot (any number of calls).
   */
  run(start: () => Exchange): { exchange: Exchange; done: () => void }
}

/** Slots for `size` held answers at once. */
export function createMaskedSlots(size: number): MaskedSlots {
  let running = 0
  const waiting: (() => void)[] = []
  const next = () => {
    while (running < size && waiting.length > 0) {
      running++
      waiting.shift()!()
    }
  }
  return {
    run(start) {
      let inner: Exchange | undefined
      let state: 'waiting' | 'running' | 'done' = 'waiting'
      const begin = () => {
        state = 'running'
        inner = start()
      }
      const done = () => {
        if (state === 'running') running--
        else if (state === 'waiting') waiting.splice(waiting.indexOf(begin), 1)
        state = 'done'
        next()
      }
      waiting.push(begin)
      next()
      return {
        exchange: {
          resume: () => inner?.resume(),
          abort: () => {
            inner?.abort()
            done()
          },
        },
        done,
      }
    },
  }
}
