/**
 * The V8 flags that make every rule pattern run in bounded time: the RegExp `l` flag (to check that a
 * pattern can run on V8's linear-time engine) and the switch to that engine when a match backtracks
 * too much. The serving process gets them on its command line (launch.ts); any other process that
 * compiles rules sets them at run time here (loading node:v8 only then: it costs the server RSS).
 */
import { createRequire } from 'node:module'

/** The flags, as given to node. */
export const regexpFlags = [
  '--enable-experimental-regexp-engine',
  '--enable-experimental-regexp-engine-on-excessive-backtracks',
] as const

/** Sets the flags in this process unless it was started with them. */
export function ensureRegexpFlags(): void {
  if (regexpFlags.every((flag) => process.execArgv.includes(flag))) return
  const { setFlagsFromString } = createRequire(import.meta.url)('node:v8') as typeof import('node:v8')
  for (const flag of regexpFlags) setFlagsFromString(flag)
}
