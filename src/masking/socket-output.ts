/**
 * The default plumbing of masked output: each masked stream of the child is one end of a Unix socket
 * connection, and the CLI reads the other end with the fast copy (src/masking/fast-copy.ts). Node's own
 * `stdio: 'pipe'` is a socketpair too, but it is read through a stream in 64 KB chunks, one fresh
 * buffer each, which costs more CPU than this copy (figures: docs/cli-performance.md).
 *
 * The connection is made without starting a process (making FIFOs starts `mkfifo`, which costs start-up
 * time): a server listens on a socket in a private directory (mode 700, from mkdtemp), the
 * CLI connects once per channel, the server gives the child only the CLI's own connections (each
 * proves itself with a random token: src/masking/socket-pairing.ts), and the directory is removed at once.
 * Only the CLI's user (or root) can connect there, and they can read the child's environment anyway.
 * The wait is bounded: when the connections are not paired within 5 s, the run fails with
 * MaskChannelError (exit 9) before the child starts, and every socket is closed.
 */
import { mkdtemp, rm, rmdir } from 'node:fs/promises'
import { createServer, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IoError } from '../errors.js'
import { copyMaskedFast, readBufferSize } from './fast-copy.js'
import type { OutputChannel } from './output-channel.js'
import { SocketPairing } from './socket-pairing.js'

/** How long the CLI waits for its own connections to be paired. */
export const pairWithinMs = 5000

/** The masked output's socket connections were not paired in time: the child was not started. */
export class MaskChannelError extends IoError {
  override name = 'MaskChannelError'
  override readonly code: string = 'ERR_MASK_CHANNEL'

  constructor(waitedMs: number) {
    super(`the masked output's socket was not connected within ${waitedMs} ms; the command was not started`, {
      hint: 'run it again (another process may have taken the socket, or the machine is overloaded); VAULT_MASK_FIFO=1 uses FIFOs instead',
    })
  }
}

export interface SocketOptions {
  /** How long to wait for the connections (default pairWithinMs). */
  timeoutMs?: number
  /** Called once the server listens, before the CLI connects (tests put an intruder there). */
  beforeConnect?: (path: string) => void | Promise<void>
}

/**
 * `count` connected socket pairs as channels, or undefined when they cannot be made; throws
 * MaskChannelError when they are not connected in time.
 */
export async function openOutputSockets(
  count: number,
  options: SocketOptions = {},
): Promise<OutputChannel[] | undefined> {
  // a temporary directory that cannot be used (not a directory, full, read-only) means no channel
  const dir = await mkdtemp(join(tmpdir(), 'vault-run-')).catch(() => undefined)
  if (dir === undefined) return undefined
  const path = join(dir, 'output')
  const pairing = new SocketPairing()
  const server = createServer({ pauseOnConnect: true }, (socket) => pairing.claim(socket))
  const timeoutMs = options.timeoutMs ?? pairWithinMs
  let timer: NodeJS.Timeout | undefined
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(path, resolve)
    })
    await options.beforeConnect?.(path)
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new MaskChannelError(timeoutMs)), timeoutMs)
    })
    const pairs = Array.from({ length: count }, () => connectedPair(pairing, path))
    const connected = await Promise.race([Promise.all(pairs), timeout])
    pairing.close(connected.flatMap(({ reader, childEnd }) => [reader, childEnd]))
    return connected.map(socketChannel)
  } catch (error) {
    pairing.close()
    if (error instanceof MaskChannelError) throw error
    return undefined
  } finally {
    clearTimeout(timer)
    server.close()
    await removeSocketDirectory(dir)
  }
}

/**
 * Removes the private directory: closing the server removed its socket, so it is empty and one rmdir
 * does (a recursive rm loads Node's rimraf on every masked run); anything else left is removed too.
 */
async function removeSocketDirectory(dir: string): Promise<void> {
  await rmdir(dir).catch(() => rm(dir, { recursive: true, force: true }))
}

/** The CLI's end (read with a reused buffer into `sink`) and the child's end of one connection. */
interface Pair {
  reader: Socket
  childEnd: Socket
  setSink(sink: (chunk: Buffer) => boolean): void
}

async function connectedPair(pairing: SocketPairing, path: string): Promise<Pair> {
  let sink: (chunk: Buffer) => boolean = () => false
  const reader = new Socket({
    onread: {
      buffer: Buffer.allocUnsafe(readBufferSize),
      callback: (size: number, buffer: Uint8Array) =>
        sink(Buffer.from(buffer.buffer, buffer.byteOffset, size)),
    },
  })
  // nothing is read before the copy starts, and an unused channel keeps the CLI alive
  reader.pause()
  reader.unref()
  const childEnd = await pairing.connect(reader, path)
  childEnd.unref()
  return { reader, childEnd, setSink: (next) => (sink = next) }
}

/** The channel of a connected pair: the child gets one end, the fast copy reads the other. */
function socketChannel({ reader, childEnd, setSink }: Pair): OutputChannel {
  return {
    childEnd,
    start(target, values) {
      childEnd.destroy()
      return copyMaskedFast(
        (onChunk) => {
          setSink(onChunk)
          reader.ref()
          reader.resume()
          return reader
        },
        target,
        values,
      )
    },
    close() {
      childEnd.destroy()
      reader.destroy()
    },
  }
}
