/**
 * Bounds the memory that relayed answers leave behind. Each answer is read into ArrayBuffers that live
 * outside V8's heap. Under a sustained relay some of them end up in the old generation, and then only a
 * full collection frees them, which V8 starts by itself only once about 64 MB more of such memory has
 * piled up (its external memory soft limit), beyond the 40 MiB goal in a 64 MB container. Every 100 ms,
 * when ArrayBuffers hold more than 8 MB, a full collection runs. The limit stays above what the young
 * generation holds between its own collections. Figures: docs/proxy-performance.md, "Sustained relay".
 */
import { fullCollection } from './exposed-gc.js'

export interface BufferGarbageOptions {
  /** ArrayBuffer bytes above which a full collection runs. */
  limitBytes?: number
  intervalMs?: number
  /** The full collection (exposed-gc.ts); with none, nothing is checked. */
  collect?: (() => void) | null
  /** The bytes ArrayBuffers hold now. */
  arrayBufferBytes?: () => number
}

/** Starts the check (an unref'd timer); returns how to stop it and how many collections it forced. */
export function boundBufferGarbage(options: BufferGarbageOptions = {}): {
  stop(): void
  collections(): number
} {
  const {
    limitBytes = 8 * 1024 * 1024,
    intervalMs = 100,
    collect = fullCollection,
    arrayBufferBytes = () => process.memoryUsage().arrayBuffers,
  } = options
  let collections = 0
  if (!collect) return { stop: () => undefined, collections: () => collections }
  const timer = setInterval(() => {
    if (arrayBufferBytes() <= limitBytes) return
    collect()
    collections++
  }, intervalMs).unref()
  return { stop: () => clearInterval(timer), collections: () => collections }
}
