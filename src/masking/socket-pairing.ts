/**
 * Pairs the CLI's connections to its listening socket (src/masking/socket-output.ts) with the connections
 * the server accepts, so that the child's end of a masked stream is always the CLI's own connection.
 * Each connection first sends a fresh random token; an accepted connection whose first bytes are not
 * a waiting token (another process of the same user, or root, that reached the socket first) is closed
 * and never given to the child.
 */
import type { Socket } from 'node:net'
import { startUpRandomBytes } from '../crypto/start-up-random.js'

const tokenBytes = 16

export class SocketPairing {
  private readonly waiting = new Map<string, (socket: Socket) => void>()
  /** Every socket made or accepted, until `close` hands out the paired ones and closes the rest. */
  private readonly sockets = new Set<Socket>()
  private closed = false

  /** An accepted connection (paused): paired when its first bytes are a waiting token, else closed. */
  claim(socket: Socket): void {
    if (this.closed) {
      socket.destroy()
      return
    }
    this.sockets.add(socket)
    socket.on('error', () => socket.destroy())
    let head = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      if (head.length < tokenBytes) return
      socket.off('data', onData)
      socket.pause()
      const key = head.toString('hex')
      const pair = head.length === tokenBytes ? this.waiting.get(key) : undefined
      if (!pair) {
        socket.destroy()
        return
      }
      this.waiting.delete(key)
      pair(socket)
    }
    socket.on('data', onData)
    socket.resume()
  }

  /** Connects `reader` to `path`, sends a fresh token, and resolves with the end the server accepted. */
  async connect(reader: Socket, path: string): Promise<Socket> {
    const token = startUpRandomBytes(tokenBytes)
    const accepted = new Promise<Socket>((resolve) => this.waiting.set(token.toString('hex'), resolve))
    this.sockets.add(reader)
    await new Promise<void>((resolve, reject) => {
      reader.once('error', reject)
      reader.connect(path, resolve)
    })
    reader.write(token)
    return accepted
  }

  /** Closes every socket but `keep` (the paired ends handed out); later connections are closed at once. */
  close(keep: readonly Socket[] = []): void {
    this.closed = true
    this.waiting.clear()
    for (const socket of this.sockets) if (!keep.includes(socket)) socket.destroy()
    this.sockets.clear()
  }
}
