/**
 * Counts the bytes a client connection holds in a request head it has not finished against the global
 * budget of held bytes (held-budget.ts): Node's parser keeps an unfinished head in memory (up to the
 * head cap), so 1,000 peers each sending most of a head and never finishing it took 1.3 GB before the
 * cap and the budget. The connection's bytes are counted from its first byte (or the end of its last
 * request body) to the end of each head: after a bodiless request, the rest of its chunk; after a body,
 * from the next chunk on. A connection over the budget when it is the largest holder is closed.
 */
import type http from 'node:http'
import type net from 'node:net'
import type { HeldBudget } from './held-budget.js'

const headEnd = Buffer.from('\r\n\r\n')

/** What the server tells a watched connection: a head ended (request, upgrade or CONNECT). */
export type HeadEnded = (req: http.IncomingMessage, leavesHttp: boolean) => void

const watched = new WeakMap<net.Socket, HeadEnded>()

/** True when the request has a body (the bytes after its head are not a head). */
function hasBody(req: http.IncomingMessage): boolean {
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/**
 * Watches `socket`, just handed to the HTTP server (its 'data' listener sees each chunk before the
 * parser: Node then reads the socket in JavaScript instead of in its native parser loop, about 5-20% more
 * CPU per request on /_ping at 16 connections, within this machine's noise for 64 KB answers).
 */
export function watchHeads(socket: net.Socket, budget: HeldBudget): void {
  const holder = budget.holder(() => socket.destroy())
  holder.evictable = true
  let inHead = true
  let current: Buffer = Buffer.alloc(0)
  let body: http.IncomingMessage | undefined
  let left = false
  socket.prependListener('data', (chunk: Buffer) => {
    current = chunk
    if (body?.complete) {
      body = undefined
      inHead = !left
    }
    if (inHead && !holder.reserve(chunk.length)) socket.destroy()
  })
  socket.once('close', () => holder.release())
  watched.set(socket, (req, leavesHttp) => {
    holder.release()
    if (leavesHttp) {
      left = true
      inHead = false
    } else if (hasBody(req)) {
      inHead = false
      body = req
    } else {
      inHead = true
      const end = current.lastIndexOf(headEnd)
      const rest = end === -1 ? 0 : current.length - end - headEnd.length
      if (rest > 0 && !holder.reserve(rest)) socket.destroy()
    }
  })
}

/** Tells the watch of `req`'s connection that its head ended. */
export function headEnded(req: http.IncomingMessage, leavesHttp = false): void {
  watched.get(req.socket)?.(req, leavesHttp)
}
