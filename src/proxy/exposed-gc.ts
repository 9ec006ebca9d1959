/**
 * The collections the serving process forces itself: V8's `gc`, exposed by launch.ts's `--expose-gc`
 * (null where it is not exposed, as in a process that was not relaunched, or under test).
 */
type ExposedGc = (options?: {
  type?: 'major' | 'minor'
  execution?: 'sync' | 'async'
  flavor?: 'regular' | 'last-resort'
}) => void

const exposed = (globalThis as { gc?: ExposedGc }).gc ?? null

/** One full collection: frees every unreachable object and the memory outside the heap it held. */
export const fullCollection: (() => void) | null = exposed && (() => exposed())

/**
 * Full collections that also shrink V8's heap and hand its free pages back (V8's last-resort flavour, what
 * its memory reducer would do on an idle process; launch.ts turns that reducer off with incremental marking).
 */
export const compactingCollection: (() => void) | null =
  exposed && (() => exposed({ type: 'major', execution: 'sync', flavor: 'last-resort' }))
