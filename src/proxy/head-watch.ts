/**
 * Counts the bytes a client connection holds in a request head it has not finished against the global
 * budget of held bytes (held-budget.ts): Node's parser keeps an unfinished head in memory (up to the
 * head cap), so 1,000 peers each sending most of a head and never finishing it took 1.3 GB before the
 * cap and the budget. The connection's bytes are counted from its first byte (or the end of its last
 * request body) to the end of each head: after a bodiless request, the rest of its chunk; after a body,
 * from the next chunk on. A connection over the budget when it is the largest holder is closed.
 *
 * The chunks are seen without a 'data' listener, which would switch Node from reading the socket in its
 * native parser loop to reading it in JavaScript (docs/proxy-performance.md): the server's parser calls
 * its `kOnExecute` slot after each chunk it read natively, where `socket.bytesRead` says how many bytes
 * came, and `getCurrentBuffer()` gives the chunk a head ended in. Both are Node internals
 * (node-http.ts, docs/decisions.md); where they are missing, a 'data' listener does the same job.
 */
import type http from 'node:http'
import type net from 'node:net'
import type { HeldBudget, Holder } from './held-budget.js'
import { serverParserOf } from './node-http.js'

const headEnd = Buffer.from('\r\n\r\n')

/** What the server tells a watched connection: a head ended (request, upgrade or CONNECT). */
export type HeadEnded = (req: http.IncomingMessage, leavesHttp: boolean) => void

const watched = new WeakMap<net.Socket, HeadEnded>()

/** True when the request has a body (the bytes after its head are not a head). */
function hasBody(req: http.IncomingMessage): boolean {
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/** Bytes after the last head end in `chunk` (the start of the next head), 0 when none. */
function afterLastHead(chunk: Buffer): number {
  const end = chunk.lastIndexOf(headEnd)
  return end === -1 ? 0 : chunk.length - end - headEnd.length
}

/**
 * The accounting of one connection: `chunk(bytes)` for each chunk read (before or after the parser saw
 * it), `ended(req, leavesHttp, chunk)` when a head ended in `chunk` (the chunk being parsed).
 */
function headAccount(socket: net.Socket, budget: HeldBudget) {
  const holder: Holder = budget.holder(() => socket.destroy())
  holder.evictable = true
  let inHead = true
  let body: http.IncomingMessage | undefined
  let left = false
  const reserve = (bytes: number) => {
    if (bytes > 0 && !holder.reserve(bytes)) socket.destroy()
  }
  socket.once('close', () => holder.release())
  return {
    chunk(bytes: number) {
      if (body?.complete) {
        body = undefined
        inHead = !left
      }
      if (inHead) reserve(bytes)
    },
    ended(req: http.IncomingMessage, leavesHttp: boolean, chunk: () => Buffer) {
      holder.release()
      if (leavesHttp) {
        left = true
        inHead = false
      } else if (hasBody(req)) {
        inHead = false
        body = req
      } else {
        inHead = true
        reserve(afterLastHead(chunk()))
      }
    },
  }
}

/**
 * Watches `socket`, just handed to the HTTP server (after its 'connection' event). Natively read chunks
 * are counted after the parser saw them, so a head that ends in a chunk has already released its
 * connection's bytes when the chunk is counted: that chunk counts only from its last head end on.
 */
export function watchHeads(socket: net.Socket, budget: HeldBudget, held = socket.bytesRead): void {
  const account = headAccount(socket, budget)
  const parser = serverParserOf(socket)
  if (!parser) {
    let current: Buffer = Buffer.alloc(0)
    socket.prependListener('data', (chunk: Buffer) => {
      current = chunk
      account.chunk(chunk.length)
    })
    watched.set(socket, (req, leavesHttp) => account.ended(req, leavesHttp, () => current))
    return
  }
  // Bytes read before the hand-over and not yet parsed (parsed from JavaScript) count whole now.
  let seen = socket.bytesRead
  account.chunk(held)
  parser.afterEachRead(() => {
    const read = socket.bytesRead
    account.chunk(read - seen)
    seen = read
  })
  watched.set(socket, (req, leavesHttp) => {
    // A head ends while the parser works through its chunk: the rest of that chunk is what counts.
    seen = socket.bytesRead
    account.ended(req, leavesHttp, () => parser.currentChunk())
  })
}

/** Tells the watch of `req`'s connection that its head ended. */
export function headEnded(req: http.IncomingMessage, leavesHttp = false): void {
  watched.get(req.socket)?.(req, leavesHttp)
}
