/**
 * Admission of client connections: beyond the cap a connection is answered 503 and closed before Node's
 * HTTP machinery sees it; on a plain (non-TLS) listener a connection is handed to the HTTP server only when
 * its first byte arrives, so a connection that sends nothing costs a socket and no HTTP parser (about 5 KB
 * instead of 13) and is closed when the head timeout passes.
 */
import type http from 'node:http'
import net from 'node:net'
import { clientOf } from './context.js'
import { compactingCollection } from './exposed-gc.js'
import { rawJsonResponse } from './headers.js'
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
}

/** The listening server, the open client connections, and the ones that have not sent a byte yet. */
export interface Admission {
  listener: net.Server
  sockets: Set<net.Socket>
  silent: Set<net.Socket>
}

/** Answers 503 on a connection over the cap (never read), then closes it. */
function refuseConnection(socket: net.Socket, maxConnections: number, tls: boolean): void {
  socket.on('error', () => socket.destroy())
  if (tls) socket.destroy()
  else socket.end(rawJsonResponse(503, `vault proxy: too many connections (at most ${maxConnections})`))
  socket.setTimeout(2_000, () => socket.destroy())
}

/** Connections that count as a burst, and the share of them that must have gone before compacting. */
const burstSize = 256
const burstGoneShare = 4

/**
 * Gives the memory of a burst of connections back once most of it has gone: compacting collections
 * (exposed-gc.ts) when the open connections fall below a quarter of a high-water mark of at least 256.
 * Without them V8 keeps the burst's heap pages until its next full collection, which an idle proxy may
 * never run; a plain full collection frees the objects but kept the pages (1,000 held connections,
 * test/integration/proxy-abuse.test.ts: 62.0 MB after against a 61.9 MB peak; 56.8 MB with these).
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
  const overCap = (socket: net.Socket): boolean => {
    if (sockets.size < options.maxConnections) return false
    refuseConnection(socket, options.maxConnections, options.tls)
    options.logger.log('warning', 'connection refused', {
      client: clientOf(socket, options.frontend),
      reason: 'connection cap',
    })
    return true
  }
  const afterBurst = compactAfterBurst()
  const track = (socket: net.Socket) => {
    sockets.add(socket)
    afterBurst.opened(sockets.size)
    socket.on('close', () => {
      sockets.delete(socket)
      silent.delete(socket)
      afterBurst.closed(sockets.size)
    })
  }
  if (options.tls) {
    server.prependListener('connection', (socket: net.Socket) => {
      if (!overCap(socket)) track(socket)
    })
    return { listener: server, sockets, silent }
  }
  const listener = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
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
      server.emit('connection', socket)
    })
  })
  // The HTTP server never listens itself: its connection tracking (head timeouts, idle connections)
  // starts on its 'listening' event, and stops when it is closed.
  listener.on('listening', () => server.emit('listening'))
  listener.on('close', () => server.close())
  return { listener, sockets, silent }
}
