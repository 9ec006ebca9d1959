/**
 * Random bytes for the start-up path of every command: read from the kernel's generator
 * (/dev/urandom, which OpenSSL behind node:crypto draws from too), because loading node:crypto costs
 * start-up time (figures: docs/cli-performance.md). Where there is
 * no /dev/urandom character device (Windows), node:crypto gives them.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

function fromKernel(size: number): Buffer | undefined {
  let descriptor: number
  try {
    descriptor = openSync('/dev/urandom', 'r')
  } catch {
    return undefined
  }
  try {
    if (!fstatSync(descriptor).isCharacterDevice()) return undefined
    const bytes = Buffer.alloc(size)
    for (let filled = 0; filled < size;) {
      const count = readSync(descriptor, bytes, filled, size - filled, null)
      if (count <= 0) return undefined
      filled += count
    }
    return bytes
  } finally {
    closeSync(descriptor)
  }
}

/** `size` cryptographically random bytes, without loading node:crypto where the kernel gives them. */
export function startUpRandomBytes(size: number): Buffer {
  return fromKernel(size) ?? process.getBuiltinModule('node:crypto').randomBytes(size)
}
