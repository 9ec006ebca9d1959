/**
 * Reads a request body whole, for the guard, bounded: a declared Content-Length over the limit is
 * refused before a byte is read, a chunked body is read until it passes the limit. The body is what
 * Node's parser delivered (chunked framing removed), and it is forwarded as these exact bytes. A client
 * that goes away or stalls before the end yields nothing (its connection is closed).
 */
import type http from 'node:http'

export type BodyRead = { kind: 'whole'; body: Buffer } | { kind: 'too-large' } | { kind: 'gone' }

/** Reads `req`'s body up to `limit` bytes; `stallMs` without a byte closes the connection. */
export function readWholeBody(req: http.IncomingMessage, limit: number, stallMs: number): Promise<BodyRead> {
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve({ kind: 'too-large' })
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let length = 0
    let settled = false
    const settle = (read: BodyRead) => {
      if (settled) return
      settled = true
      req.setTimeout(0)
      req.off('data', onData)
      resolve(read)
    }
    const onData = (chunk: Buffer) => {
      length += chunk.length
      if (length > limit) {
        req.pause()
        settle({ kind: 'too-large' })
      } else chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => settle({ kind: 'whole', body: Buffer.concat(chunks, length) }))
    req.once('close', () => {
      if (!req.complete) settle({ kind: 'gone' })
    })
    req.once('error', () => settle({ kind: 'gone' }))
    req.setTimeout(stallMs, () => {
      req.socket.destroy()
      settle({ kind: 'gone' })
    })
  })
}
