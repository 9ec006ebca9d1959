/**
 * The reply to a request on the lean client path (lean-connection.ts): the status line and headers
 * written as one latin1 string together with the first body bytes (one writev), the body as it comes
 * (a part whose rest is at most one more engine read is held corked until that rest or the end of the
 * event loop's turn, so that a 64 KB answer leaves in one writev, not two), framed as node:http's
 * ServerResponse frames it: by the Content-Length given, else chunked, no body for
 * HEAD, 204 and 304. Like ServerResponse it adds `Date` when none was given, and `Connection: keep-alive`
 * with `Keep-Alive` unless a Connection header was given, which, saying close, closes the connection
 * after the reply. Header names and values are written as given, unchecked: every one comes from Node's
 * parser (the engine's answer, which llhttp accepted) or from the proxy itself (forward.ts), never from
 * a client.
 */
import type net from 'node:net'
import type { ClientReply } from './client-side.js'

/** Node's reason phrases (`http.STATUS_CODES`), passed in so that this module loads no HTTP module. */
export type ReasonPhrases = Readonly<Record<number, string | undefined>>

/** What the connection learns from its reply. */
export interface ReplyOwner {
  socket: net.Socket
  /** Seconds the connection stays open idle (the `Keep-Alive: timeout=` node:http announces). */
  keepAliveSeconds: number
  reasons: ReasonPhrases
  /** The reply was handed to the socket whole; `closes` when it said `Connection: close`. */
  ended(closes: boolean): void
}

type Event = 'drain' | 'finish' | 'close'

/** The most of a body's rest for which what came before it is held back to leave with it (one read). */
const heldRestBytes = 64 * 1024

let dateSecond = -1
let dateText = ''

/** The `Date` header's value, made once a second (as node:http does). */
function utcDate(): string {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateText = new Date(now).toUTCString()
  }
  return dateText
}

/** Lower-cased `name` when it has the length of one of the names the reply looks at, else ''. */
function notedName(name: string): string {
  const length = name.length
  return length === 4 || length === 10 || length === 14 || length === 17 ? name.toLowerCase() : ''
}

export class LeanReply implements ClientReply {
  headersSent = false
  writableFinished = false
  /** The head, until it is written with the first body bytes (or flushed). */
  private head: string | undefined
  private chunked = false
  private bodiless: boolean
  private closes = false
  private listeners: [Event, () => void, boolean][] | undefined
  private closed = false
  private ending = false
  /** Body bytes of a Content-Length answer still to come (-1 when not counted). */
  private left = -1
  /** The socket is corked for the rest of the body (see write). */
  private held = false

  constructor(
    private readonly owner: ReplyOwner,
    headRequest: boolean,
  ) {
    this.bodiless = headRequest
  }

  writeHead(status: number, statusMessage: string | undefined, rawHeaders: string[]): this {
    if (this.headersSent) return this
    let head = `HTTP/1.1 ${status} ${statusMessage ?? this.owner.reasons[status] ?? 'unknown'}\r\n`
    let length = false
    let date = false
    let connection = false
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!
      const value = rawHeaders[i + 1]!
      head += `${name}: ${value}\r\n`
      const noted = notedName(name)
      if (noted === 'content-length') {
        length = true
        this.left = /^[0-9]{1,15}$/.test(value) ? Number(value) : -1
      } else if (noted === 'date') date = true
      else if (noted === 'connection') {
        connection = true
        if (/(?:^|,)\s*close\s*(?:,|$)/i.test(value)) this.closes = true
      } else if (noted === 'transfer-encoding') {
        // framed by the caller's coding; chunked is written here, as ServerResponse does
        length = true
        if (/(?:^|\W)chunked(?:$|\W)/i.test(value)) this.chunked = true
      }
    }
    if (!date) head += `Date: ${utcDate()}\r\n`
    if (!connection)
      head += `Connection: keep-alive\r\nKeep-Alive: timeout=${this.owner.keepAliveSeconds}\r\n`
    if (status === 204 || status === 304 || (status >= 100 && status < 200)) this.bodiless = true
    if (!length && !this.bodiless) {
      head += 'Transfer-Encoding: chunked\r\n'
      this.chunked = true
    }
    this.head = `${head}\r\n`
    this.headersSent = true
    return this
  }

  flushHeaders(): void {
    const head = this.head
    if (head === undefined) return
    this.head = undefined
    this.owner.socket.write(head, 'latin1')
  }

  write(chunk: Buffer): boolean {
    if (this.bodiless || this.ending || chunk.length === 0) return true
    const socket = this.owner.socket
    if (socket.destroyed) return true
    if (this.left >= 0) this.left -= chunk.length
    socket.cork()
    const head = this.head
    if (head !== undefined) {
      this.head = undefined
      socket.write(head, 'latin1')
    }
    if (this.chunked) {
      socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1')
      socket.write(chunk)
      socket.write('\r\n', 'latin1')
    } else socket.write(chunk)
    if (!this.held && this.left > 0 && this.left <= heldRestBytes) {
      // The rest of the body is at most one more read of the engine's socket, which mostly comes in the
      // same turn of the event loop: this stays corked until then, and both leave in one writev.
      this.held = true
      setImmediate(this.release)
      return true
    }
    socket.uncork()
    if (this.held && this.left <= 0) this.release()
    return socket.writableLength < socket.writableHighWaterMark
  }

  /** Sends what was held corked for the rest of the body. */
  private readonly release = () => {
    if (!this.held) return
    this.held = false
    this.owner.socket.uncork()
  }

  end(body?: Buffer | string): this {
    if (this.ending) return this
    const socket = this.owner.socket
    if (socket.destroyed) {
      this.ending = true
      return this
    }
    socket.cork()
    if (body !== undefined && body.length > 0) this.write(typeof body === 'string' ? Buffer.from(body) : body)
    this.ending = true
    this.flushHeaders()
    if (this.chunked) socket.write('0\r\n\r\n', 'latin1')
    socket.uncork()
    this.release()
    // Finished, as for node:http, once the kernel has taken the whole reply: a client that does not
    // read holds the reply (and what is counted for it) until it does.
    if (socket.writableLength === 0) this.finish()
    else socket.write('', 'latin1', () => this.finish())
    return this
  }

  private finish(): void {
    if (this.writableFinished) return
    this.writableFinished = true
    this.emit('finish')
    this.owner.ended(this.closes)
  }

  destroy(): this {
    this.owner.socket.destroy()
    return this
  }

  /** Never asked for: the lean path hands requests that expect `100 Continue` to node:http. */
  writeContinue(): void {}

  once(event: Event, listener: () => void): this {
    ;(this.listeners ??= []).push([event, listener, true])
    return this
  }

  on(event: 'close', listener: () => void): this {
    ;(this.listeners ??= []).push([event, listener, false])
    return this
  }

  /** The socket can take more (its 'drain'). */
  drained(): void {
    this.emit('drain')
  }

  /** The reply is over (sent, or its connection closed): 'close', once. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.emit('close')
  }

  private emit(event: Event): void {
    const listeners = this.listeners
    if (!listeners) return
    for (let i = 0; i < listeners.length; i++) {
      const [name, listener, once] = listeners[i]!
      if (name !== event) continue
      if (once) {
        listeners.splice(i, 1)
        i--
      }
      listener()
    }
  }
}
