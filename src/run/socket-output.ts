/**
 * The default plumbing of masked output: each masked stream of the child is one end of a Unix socket
 * connection, and the CLI reads the other end with the fast copy (src/run/fast-copy.ts). Node's own
 * `stdio: 'pipe'` is a socketpair too, but it is read through a stream in 64 KB chunks, one fresh
 * buffer each: for 100 MB of output that cost about twice the time of this copy (bench/mask.ts).
 *
 * The connection is made without starting a process (making FIFOs starts `mkfifo`, about 50 ms on a
 * loaded machine): a server listens on a socket in a private directory (mode 700, from mkdtemp), the
 * CLI connects once per masked stream, the server takes those connections only, and the directory is
 * removed at once. Only the CLI's user (or root) can connect there, and they can read the child's
 * environment anyway.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, Socket, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { copyMaskedFast, readBufferSize } from './fast-copy.js'
import type { OutputChannel } from './output-channel.js'

/** `count` connected socket pairs as channels, or undefined when they cannot be made. */
export async function openOutputSockets(count: number): Promise<OutputChannel[] | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'vault-run-'))
  const path = join(dir, 'output')
  const server = createServer({ pauseOnConnect: true })
  server.maxConnections = count
  const channels: OutputChannel[] = []
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(path, resolve)
    })
    for (let index = 0; index < count; index++) channels.push(await connectedChannel(server, path))
    return channels
  } catch {
    for (const channel of channels) channel.close()
    return undefined
  } finally {
    server.close()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Connects to the server at `path` and pairs the two ends of that connection. */
async function connectedChannel(server: Server, path: string): Promise<OutputChannel> {
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
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve))
  await new Promise<void>((resolve, reject) => {
    reader.once('error', reject)
    reader.connect(path, resolve)
  })
  const childEnd = await accepted
  childEnd.unref()
  return {
    childEnd,
    start(target, values) {
      childEnd.destroy()
      return copyMaskedFast(
        (onChunk) => {
          sink = onChunk
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
