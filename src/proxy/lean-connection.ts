/**
 * The lean client path: a plain client connection read with Node's own HTTP parser (llhttp, strict, the
 * server's head limit), as the engine side does (engine-pool.ts), instead of node:http's server, whose
 * IncomingMessage, ServerResponse, header checks and stream events cost more CPU per request than the
 * rest of the proxy (docs/proxy-performance.md). It takes only the ordinary request whose head arrives
 * whole in one read: HTTP/1.1, keep-alive, one Host, no body (no Transfer-Encoding, no Content-Length but
 * 0), no Expect, no upgrade. Anything else (a head cut across reads too), and any head llhttp refuses,
 * hands the connection to node:http's server for good, with the bytes of that request from its first byte
 * on (put back in the socket's read buffer), so that node:http reads them as if it had had the connection
 * from there: its answers to malformed, hostile, unusual and slow requests (the smuggling corpus,
 * test/adversarial/proxy; the head timeout; unfinished heads under the head budget, head-watch.ts) are
 * the ones it always gave.
 *
 * Requests run one at a time: bytes that come while a request is served wait (unparsed, counted against
 * the head budget, held-budget.ts) until it is answered. An idle connection is closed after the
 * keep-alive timeout, checked once a second as node:http checks its own.
 */
import type net from 'node:net'
import type { ClientHead } from './client-side.js'
import type { HeldBudget, Holder } from './held-budget.js'
import { LeanReply, type ReasonPhrases, type ReplyOwner } from './lean-reply.js'
import type { HeadersCompleteArgs, Parser, ParserConstructor } from './node-http.js'

/** What the lean path needs from the server around it. */
export interface LeanOptions {
  parser: ParserConstructor
  /** llhttp's method names by number (`_http_common`'s `methods`). */
  methods: readonly string[]
  reasons: ReasonPhrases
  maxHeadBytes: number
  keepAliveMs: number
  heads?: HeldBudget
  /** Serves one request (forward.ts's handleRequest). */
  serve(req: ClientHead, res: LeanReply): void
  /** Hands `socket` to node:http's server; `held` bytes of it (already back in its buffer) were read. */
  handOff(socket: net.Socket, held: number): void
}

/** The lean path's connections. */
export interface LeanPath {
  /** Serves `socket`, whose first bytes wait in its read buffer (it is in paused mode). */
  serve(socket: net.Socket): void
  /** Closes the connections that are idle (no request under way, no unfinished head). */
  closeIdle(): void
}

/** What the parser said about the head it just finished. */
interface ParsedHead {
  major: number
  minor: number
  headers: string[]
  method: number
  url: string
  upgrade: boolean
  keepAlive: boolean
}

const headEnd = Buffer.from('\r\n\r\n')

/** Above this many header lines node:http keeps only the first 2,000 (its maxHeaderPairs): its call. */
const maxHeaderEntries = 2000

/** The head as forward.ts reads it, or undefined when node:http should serve the request. */
function ordinaryHead(parsed: ParsedHead, methods: readonly string[], socket: net.Socket) {
  const method = methods[parsed.method]
  if (
    parsed.major !== 1 ||
    parsed.minor !== 1 ||
    parsed.upgrade ||
    !parsed.keepAlive ||
    method === undefined ||
    method === 'CONNECT' ||
    parsed.headers.length >= maxHeaderEntries
  )
    return undefined
  const rawHeaders = parsed.headers
  const headers: Record<string, string> = {}
  let hosts = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    const length = name.length
    if (length !== 4 && length !== 6 && length !== 12 && length !== 14 && length !== 17) continue
    const lower = name.toLowerCase()
    if (lower === 'host') {
      hosts++
      headers.host ??= rawHeaders[i + 1]!
    } else if (lower === 'expect' || lower === 'transfer-encoding') return undefined
    else if (lower === 'content-length') {
      if (rawHeaders[i + 1] !== '0') return undefined
      headers['content-length'] = '0'
    } else if (lower === 'content-type') headers['content-type'] ??= rawHeaders[i + 1]!
  }
  if (hosts !== 1) return undefined
  const head: ClientHead = { method, url: parsed.url, httpVersion: '1.1', headers, rawHeaders, socket }
  return head
}

/** The lean path over `options` (see the module comment). */
export function leanPath(options: LeanOptions): LeanPath {
  const connections = new Set<Connection>()
  const resource = {}
  let checker: NodeJS.Timeout | undefined
  // As node:http's server: the keep-alive timeout it announces, plus a second.
  const idleMs = options.keepAliveMs + 1_000

  /** The keep-alive timer, running while there are connections. */
  const check = () => {
    const now = Date.now()
    for (const connection of connections) connection.closeIfIdleSince(now - idleMs)
  }

  class Connection implements ReplyOwner {
    readonly socket: net.Socket
    readonly keepAliveSeconds = Math.floor(options.keepAliveMs / 1000)
    readonly reasons = options.reasons
    private readonly parser: Parser
    private readonly holder: Holder | undefined
    /** Bytes that came while a request was served, not yet parsed. */
    private waiting: Buffer | undefined
    private reply: LeanReply | undefined
    private parsed: ParsedHead | undefined
    private flushedHeaders: string[] = []
    private flushedUrl = ''
    private idleSince = Date.now()
    private gone = false
    private readonly onData = (chunk: Buffer) => this.received(chunk)
    private readonly onEnd = () => this.clientEnded()
    private readonly onError = () => this.socket.destroy()
    private readonly onDrain = () => this.reply?.drained()

    constructor(socket: net.Socket) {
      this.socket = socket
      const parser = new options.parser()
      this.parser = parser
      const { kOnHeaders, kOnHeadersComplete } = options.parser
      parser[kOnHeaders] = (headers: string[], url: string) => {
        this.flushedHeaders.push(...headers)
        this.flushedUrl += url
      }
      parser[kOnHeadersComplete] = (...head: HeadersCompleteArgs) => {
        const [major, minor, headers, method, url, , , upgrade, keepAlive] = head
        const flushed = this.flushedHeaders
        this.parsed = {
          major,
          minor,
          headers: headers ? (flushed.length ? [...flushed, ...headers] : headers) : flushed,
          method: method as number,
          url: typeof url === 'string' && url !== '' ? this.flushedUrl + url : this.flushedUrl,
          upgrade,
          keepAlive,
        }
        // Stop after the head: the request is served before the bytes after it are parsed.
        return 2
      }
      this.reset()
      if (options.heads) {
        const holder = options.heads.holder(() => socket.destroy())
        holder.evictable = true
        this.holder = holder
      }
      socket.on('data', this.onData)
      socket.on('end', this.onEnd)
      socket.on('error', this.onError)
      socket.on('drain', this.onDrain)
      socket.on('close', () => this.closed())
    }

    /** Starts the parser on a new message. */
    private reset() {
      this.parser.initialize(
        options.parser.REQUEST,
        resource,
        options.maxHeadBytes,
        options.parser.kLenientNone,
      )
      this.flushedHeaders = []
      this.flushedUrl = ''
      this.parsed = undefined
    }

    /** Counts the bytes waiting on the connection against the head budget. */
    private hold(bytes: number) {
      if (this.holder && bytes > 0 && !this.holder.reserve(bytes)) this.socket.destroy()
    }

    private received(chunk: Buffer) {
      if (this.reply) {
        this.waiting = this.waiting ? Buffer.concat([this.waiting, chunk]) : chunk
        this.hold(chunk.length)
        if (this.waiting.length > options.maxHeadBytes) this.socket.pause()
        return
      }
      this.parse(chunk)
    }

    /** Parses `chunk`, which begins a new message. */
    parse(chunk: Buffer) {
      let result: number | Error
      try {
        result = this.parser.execute(chunk)
      } catch (error) {
        result = error as Error
      }
      const parsed = this.parsed
      // A head that does not end in this chunk goes to node:http with it: its parser holds an unfinished
      // head in less memory than this chunk and llhttp's copy of it would take (and times it out).
      if (result instanceof Error || parsed === undefined) return this.handOff(chunk)
      const req = ordinaryHead(parsed, options.methods, this.socket)
      if (req === undefined) return this.handOff(chunk)
      this.reset()
      const rest = result < chunk.length ? chunk.subarray(result) : undefined
      if (rest) {
        this.waiting = rest
        this.hold(rest.length)
      }
      const reply = new LeanReply(this, req.method === 'HEAD')
      this.reply = reply
      options.serve(req, reply)
    }

    /** node:http's server takes the connection from the first byte of the message in `chunk` on. */
    private handOff(chunk: Buffer) {
      this.leave()
      this.socket.off('error', this.onError)
      this.socket.unshift(chunk)
      options.handOff(this.socket, chunk.length)
    }

    /** Stops serving the socket here (handed off or closed). */
    private leave() {
      this.gone = true
      this.waiting = undefined
      this.holder?.release()
      this.socket.off('data', this.onData)
      this.socket.off('end', this.onEnd)
      this.socket.off('drain', this.onDrain)
      this.parser.close()
      connections.delete(this)
      if (connections.size === 0 && checker) {
        clearInterval(checker)
        checker = undefined
      }
    }

    /** The reply was handed to the socket: the next request, or the end of the connection. */
    ended(closes: boolean) {
      const reply = this.reply
      this.reply = undefined
      reply?.close()
      if (this.gone) return
      const waiting = this.waiting
      this.waiting = undefined
      this.holder?.release()
      if (closes) {
        // Nothing after a reply that closes runs; the socket goes once the reply is flushed.
        this.leave()
        const socket = this.socket
        socket.end(() => socket.destroy())
        return
      }
      this.idleSince = Date.now()
      if (!waiting) return
      if (this.socket.isPaused()) this.socket.resume()
      // The engine connection that answered goes back to its pool when this returns.
      queueMicrotask(() => {
        if (this.gone || this.socket.destroyed) return
        if (this.reply) return this.received(waiting)
        this.parse(waiting)
      })
    }

    /**
     * The client closed its side. As node:http's server: a request under way is abandoned (its answer
     * could not be written), an idle connection is closed.
     */
    private clientEnded() {
      if (this.reply) this.socket.destroy()
      else this.socket.end()
    }

    /** Closes the connection when it has been idle (no request under way) since before `since`. */
    closeIfIdleSince(since: number) {
      if (!this.reply && !this.gone && this.idleSince <= since) this.socket.destroy()
    }

    private closed() {
      if (!this.gone) this.leave()
      this.reply?.close()
      this.reply = undefined
    }
  }

  return {
    serve(socket) {
      // A first read without a head's end (a slow or stalled client) goes to node:http before any state
      // is built for it here: 1,000 such connections cost what they cost before the lean path.
      const first = socket.read() as Buffer | null
      if (first !== null && first.indexOf(headEnd) === -1) {
        socket.unshift(first)
        return options.handOff(socket, first.length)
      }
      const connection = new Connection(socket)
      connections.add(connection)
      checker ??= setInterval(check, 1_000).unref()
      if (first !== null) connection.parse(first)
    },
    closeIdle() {
      for (const connection of connections) connection.closeIfIdleSince(Infinity)
    },
  }
}
