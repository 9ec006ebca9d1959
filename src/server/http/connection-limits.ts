/**
 * The server's connection limits: how many sockets one source may hold open at once, and how long a
 * request may take to send its headers and its whole body. A source is the TCP peer (by its /64 for
 * IPv6, as the rate limits count it): X-Forwarded-For is not known when a socket is accepted, so a
 * trusted proxy (`--trusted-proxies`) gets a cap of its own, large enough for a gateway's keep-alive
 * pool. A socket over its source's cap is closed at accept, before a byte is read or written: an
 * answer (503) would need the request read first (closing with it unread resets the connection and
 * loses the answer anyway) and, over TLS, a handshake, which is the work and the held socket the cap
 * exists to refuse. Refusals are logged at most once a minute, as a count.
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { sourceKey, type ProxyTrust } from './client-address.js'

export interface ConnectionLimits {
  /** Sockets one source (a TCP peer that is not a trusted proxy) may hold open at once. */
  connectionsPerSource: number
  /** Sockets one trusted proxy may hold open at once. */
  connectionsPerProxy: number
  /** Time a request has to send its headers (node:http's headersTimeout; 408 and close beyond). */
  headersTimeoutMs: number
  /** Time a request has to send its headers and body (node:http's requestTimeout; 408 and close beyond). */
  requestTimeoutMs: number
}

export const defaultConnectionLimits: ConnectionLimits = {
  connectionsPerSource: 64,
  connectionsPerProxy: 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
}

/**
 * The node:http server options that enforce the timeouts. node:http checks them on a timer
 * (`connectionsCheckingInterval`, 30 s by default, which would let a 10 s limit last 40 s); here it
 * runs four times per headers timeout, between 50 ms and 1 s.
 */
export function timeoutOptions(limits: Pick<ConnectionLimits, 'headersTimeoutMs' | 'requestTimeoutMs'>) {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
  }
}

/** What the cap counts and refuses; `log` receives the once-a-minute summary of refusals. */
export interface SocketCapOptions {
  limits: Pick<ConnectionLimits, 'connectionsPerSource' | 'connectionsPerProxy'>
  /** Which TCP peers are trusted proxies (they get `connectionsPerProxy`). */
  trust: ProxyTrust
  /**
   * Every peer may be the gateway (--behind-proxy without --trusted-proxies, where it cannot be told
   * apart): every peer gets `connectionsPerProxy`.
   */
  everyPeerMayBeProxy?: boolean
  log?: (line: string) => void
  now?: () => number
}

/** Counts the open sockets of each source on `server` and closes, at accept, those over its cap. */
export function capSocketsPerSource(server: Server, options: SocketCapOptions): void {
  const open = new Map<string, number>()
  const now = options.now ?? Date.now
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
  let refused = 0
  let lastLogged = -Infinity
  const capOf = (peer: string): number =>
    options.everyPeerMayBeProxy || options.trust(peer, 0)
      ? options.limits.connectionsPerProxy
      : options.limits.connectionsPerSource

  const noteRefusal = (source: string, cap: number) => {
    refused += 1
    if (now() - lastLogged < 60_000) return
    log(
      `vault server: refused ${refused} connection${refused === 1 ? '' : 's'} over the per-source cap (latest: ${source}, ${cap} open)`,
    )
    refused = 0
    lastLogged = now()
  }

  server.prependListener('connection', (socket: Socket) => {
    const peer = socket.remoteAddress
    if (peer === undefined) {
      socket.destroy()
      return
    }
    const source = sourceKey(peer)
    const cap = capOf(peer)
    const count = (open.get(source) ?? 0) + 1
    if (count > cap) {
      socket.destroy()
      noteRefusal(source, cap)
      return
    }
    open.set(source, count)
    socket.once('close', () => {
      const left = (open.get(source) ?? 1) - 1
      if (left <= 0) open.delete(source)
      else open.set(source, left)
    })
  })
}
