/**
 * Whether `vault run`'s stdout and stderr are one output: the same pipe, socket, terminal or file
 * (`2>&1`, `&>`, `|&`). The child's two masked streams then share one masked channel, so that what it
 * writes keeps its order and a value written half to stdout and half to stderr is still masked.
 *
 * "The same" is the same object in the kernel: equal device and inode (a pipe, a socket and a terminal
 * have one inode each). Two separate opens of one file (`>f 2>f`) count as one output too: the merged
 * stream goes through stdout's descriptor, where without it stdout and stderr would overwrite each
 * other's bytes; nothing is shown unmasked either way.
 */
import { fstatSync } from 'node:fs'

/** True when descriptors `a` and `b` (default: the CLI's stdout and stderr) refer to one object. */
export function sameOutput(a = 1, b = 2): boolean {
  if (process.platform === 'win32') return false
  try {
    const first = fstatSync(a)
    const second = fstatSync(b)
    return first.dev === second.dev && first.ino === second.ino && first.ino !== 0
  } catch {
    return false
  }
}
