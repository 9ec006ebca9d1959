/**
 * What the forwarder (forward.ts) uses of a client's request and of the reply to it, so that two client
 * paths can serve it: node:http's server (IncomingMessage, ServerResponse) and the lean path for
 * ordinary bodiless requests (lean-connection.ts, lean-reply.ts).
 */
import type http from 'node:http'

/** A request's head: node:http's IncomingMessage, or the lean path's plain object. */
export type ClientHead = Pick<
  http.IncomingMessage,
  'method' | 'url' | 'httpVersion' | 'headers' | 'rawHeaders' | 'socket'
>

/** The reply to a client: node:http's ServerResponse, or lean-reply.ts's. */
export interface ClientReply {
  /** True once `writeHead` ran (the head is fixed, if not yet on the wire). */
  readonly headersSent: boolean
  /** True once the whole reply was handed to the socket. */
  readonly writableFinished: boolean
  writeHead(status: number, statusMessage: string | undefined, rawHeaders: string[]): unknown
  /** Sends the head now (an answer streamed without a length). */
  flushHeaders(): void
  /** A body chunk; false when the client's socket is full (wait for 'drain'). */
  write(chunk: Buffer): boolean
  end(body?: Buffer | string): unknown
  destroy(): unknown
  writeContinue(): void
  once(event: 'drain' | 'finish' | 'close', listener: () => void): unknown
  on(event: 'close', listener: () => void): unknown
}

/** One request as the forwarder gets it: head, reply, and the body's stream where it may have a body. */
export interface ClientRequest {
  req: ClientHead
  res: ClientReply
  /** node:http's request stream; absent on the lean path, whose requests have no body. */
  body?: http.IncomingMessage
}
