/**
 * Admission of client connections: beyond the cap, or beyond one source's share of it, a connection is
 * answered 503 and closed before Node's HTTP machinery sees it; on a plain (non-TLS) listener a client
 * that no rule set is for is answered 403 at accept, before a byte of it is read, and a connection is
 * handed to the HTTP server only when its first byte arrives, so a connection that sends nothing costs
 * a socket and no HTTP parser (about 5 KB instead of 13) and is closed when the head timeout passes.
 * The bytes of unfinished heads count against a global budget (head-watch.ts).
 */
import type http from 'node:http'
import net from 'node:net'
import { clientOf } from './context.js'
import { compactingCollection } from './exposed-gc.js'
import { headEnded, watchHeads } from './head-watch.js'
import { rawJsonResponse } from './headers.js'
import type { HeldBudget } from './held-budget.js'
import type { ProxyLogger } from './log.js'

export interface AdmissionOptions {
  maxConnections: number
  /** How long a connection may stay silent before its first byte. */
  silentMs: number
  logger: ProxyLogger
  /** The HTTP server is an HTTPS server listening itself (connections are counted, not deferred). */
  tls: boolean
  /** The frontend address, as configured (for the client field of the log). */
  frontend: string
  /** Open connections one source (peer address) may hold; the cap when absent. */
  maxConnectionsPerSource?: number
  /** Why a connection is refused at accept (no rule set is for it), or undefined. Plain listeners only. */
  refusal?: (socket: net.Socket) => string | undefined
  /** The budget the bytes of unfinished heads count against. Plain listeners only. */
  heads?: HeldBudget
  /**
   * Serves an admitted connection once its first bytes came (the lean path, lean-connection.ts); by
   * default the HTTP server takes it. Plain listeners only.
   */
  serve?: (socket: net.Socket) => void
}

/** The listening server, the open client connections, and the ones that have not sent a byte yet. */
export interface Admission {
  listener: net.Server
  sockets: Set<net.Socket>
  silent: Set<net.Socket>
}

/** Answers `status` on a refused connection (never read), then closes it. */
function refuseConnection(socket: net.Socket, status: number, message: string, tls: boolean): void {
  socket.on('error', () => socket.destroy())
  if (tls) socket.destroy()
  else socket.end(rawJsonResponse(status, `vault proxy: ${message}`))
  socket.setTimeout(2_000, () => socket.destroy())
}

/** The source a connection counts against: its peer address (one source for a unix socket). */
const sourceOf = (socket: net.Socket) => socket.remoteAddress ?? 'unix'

/** Connections that count as a burst, and the share of them that must have gone before compacting. */
const burstSize = 256
const burstGoneShare = 4

/**
 * Gives the memory of a burst of connections back once most of it has gone: compacting collections
 * (exposed-gc.ts) when the open connections fall below a quarter of a high-water mark of at least 256.
 * Without them V8 keeps the burst's heap pages until its next full collection, which an idle proxy may
 * never run; a plain full collection frees the objects but keeps the pages (figures:
 * docs/proxy-performance.md, "Code comments' figures").
 */
export function compactAfterBurst(collect: (() => void) | null = compactingCollection): {
  opened(count: number): void
  closed(count: number): void
} {
  let highWater = 0
  let pending = false
  return {
    opened: (count) => {
      if (count > highWater) highWater = count
    },
    closed: (count) => {
      if (!collect || pending || highWater < burstSize || count * burstGoneShare > highWater) return
      pending = true
      setTimeout(() => {
        pending = false
        highWater = 0
        collect()
      }, 100).unref()
    },
  }
}

/** Admits the connections of `server` (see the module comment). */
export function admitConnections(server: http.Server, options: AdmissionOptions): Admission {
  const sockets = new Set<net.Socket>()
  const silent = new Set<net.Socket>()
  const perSource = new Map<string, number>()
  const share = options.maxConnectionsPerSource ?? options.maxConnections
  const refuse = (socket: net.Socket, status: number, message: string, reason: string) => {
    refuseConnection(socket, status, message, options.tls)
    options.logger.log('warning', 'connection refused', {
      client: clientOf(socket, options.frontend),
      reason,
    })
    return true
  }
  const overCap = (socket: net.Socket): boolean => {
    if (sockets.size >= options.maxConnections)
      return refuse(socket, 503, `too many connections (at most ${options.maxConnections})`, 'connection cap')
    if ((perSource.get(sourceOf(socket)) ?? 0) >= share)
      return refuse(
        socket,
        503,
        `too many connections from this client (at most ${share})`,
        'share of a source',
      )
    return false
  }
  const afterBurst = compactAfterBurst()
  const track = (socket: net.Socket) => {
    sockets.add(socket)
    const source = sourceOf(socket)
    perSource.set(source, (perSource.get(source) ?? 0) + 1)
    afterBurst.opened(sockets.size)
    socket.on('close', () => {
      sockets.delete(socket)
      silent.delete(socket)
      const left = perSource.get(source)! - 1
      if (left === 0) perSource.delete(source)
      else perSource.set(source, left)
      afterBurst.closed(sockets.size)
    })
  }
  if (options.tls) {
    server.prependListener('connection', (socket: net.Socket) => {
      if (!overCap(socket)) track(socket)
    })
    return { listener: server, sockets, silent }
  }
  const heads = options.heads
  if (heads) {
    const ended = (req: http.IncomingMessage) => headEnded(req)
    const left = (req: http.IncomingMessage) => headEnded(req, true)
    server.prependListener('request', ended)
    server.prependListener('checkContinue', ended)
    server.prependListener('upgrade', left)
    server.prependListener('connect', left)
  }
  const listener = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    const refusal = options.refusal?.(socket)
    if (refusal !== undefined) return void refuse(socket, 403, refusal, 'no rule set')
    if (overCap(socket)) return
    track(socket)
    silent.add(socket)
    const close = () => socket.destroy()
    socket.on('error', close)
    socket.setTimeout(options.silentMs, close)
    socket.once('readable', () => {
      silent.delete(socket)
      if (socket.readableLength === 0) return socket.destroy()
      socket.setTimeout(0)
      socket.off('timeout', close)
      socket.off('error', close)
      if (options.serve) return options.serve(socket)
      server.emit('connection', socket)
      if (heads) watchHeads(socket, heads)
    })
  })
  // The HTTP server never listens itself: its connection tracking (head timeouts, idle connections)
  // starts on its 'listening' event, and stops when it is closed.
  listener.on('listening', () => server.emit('listening'))
  listener.on('close', () => server.close())
  return { listener, sockets, silent }
}
