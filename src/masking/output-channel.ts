/**
 * A masked stream's plumbing made before the child is spawned: the end the child writes into, and the
 * fast masked copy from the other end (src/masking/fast-copy.ts). A Unix socket connection by default
 * (src/masking/socket-output.ts), a FIFO with VAULT_MASK_FIFO=1 (src/masking/fifo-output.ts).
 */
import type { Socket } from 'node:net'
import type { CopyTarget, FastCopy } from './fast-copy.js'
import { openOutputSockets } from './socket-output.js'

export interface OutputChannel {
  /** What `spawn` gives the child as its stdout or stderr. */
  childEnd: number | Socket
  /** Call right after `spawn`: closes the CLI's copy of the child's end and starts the masked copy. */
  start(target: CopyTarget, values: string[]): FastCopy
  /** Closes both ends of a channel that will not be used. */
  close(): void
}

/**
 * One channel per masked stream: FIFOs with VAULT_MASK_FIFO=1 (when `mkfifo` works), else Unix
 * sockets; undefined when neither can be made (Windows), and the stream copy of Node's pipe is used.
 */
export async function openOutputChannels(
  count: number,
  env: NodeJS.ProcessEnv,
): Promise<OutputChannel[] | undefined> {
  if (count === 0 || process.platform === 'win32') return undefined
  if (env.VAULT_MASK_FIFO === '1') {
    const { openOutputFifos } = await import('./fifo-output.js')
    const fifos = await openOutputFifos(count)
    if (fifos) return fifos
  }
  return openOutputSockets(count)
}

/** Closes channels that will not be used. */
export function closeOutputChannels(channels: OutputChannel[]): void {
  for (const channel of channels) channel.close()
}
