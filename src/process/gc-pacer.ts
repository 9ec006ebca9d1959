/**
 * Paced garbage collection for the long streaming passes of `vault restore` and `--verify`. Their
 * garbage is mostly native memory behind small JS objects (inflated Buffers, an HMAC context per audit
 * event, SQLite row copies) that V8's heuristics do not see, so without help it piles up and resident
 * memory grows with the archive. Each pass reports the work it did (`paceGarbage(bytes)`); every
 * `everyBytes` of work a full collection runs, which keeps the peak flat whatever the archive's size.
 * Only when the process runs with `--expose-gc` (restore-launch.ts starts restore so); elsewhere (the
 * server, tests) this does nothing.
 */

/** Work between two collections: small enough to keep the garbage low, large enough to cost little. */
export const gcEveryBytes = 4 * 1024 * 1024

let pending = 0

/** Notes `bytes` of streamed work (an inflated chunk, a page of rows); collects when enough piled up. */
export function paceGarbage(bytes: number): void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return
  pending += bytes
  if (pending < gcEveryBytes) return
  pending = 0
  gc()
}

/** What a row read back from the database is counted as (audit events, the bulk, are about this size). */
const rowBytes = 512

/** Notes a page of `rows` rows read back from the database. */
export function paceRows(rows: number): void {
  paceGarbage(rows * rowBytes)
}
