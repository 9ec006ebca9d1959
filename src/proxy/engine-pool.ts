/**
 * The lean engine client of the proxy: a keep-alive pool of plain connections (unix socket or TCP)
 * on which each request head is written as one string and the answer is parsed by Node's own HTTP
 * parser (llhttp, strict, 1 MB of headers), then handed to the exchange callbacks chunk by chunk with
 * back-pressure. It replaces node:http's ClientRequest and Agent on the hot path, which cost about
 * as much CPU per request as the whole rest of the proxy. A connection returns to the pool only after
 * a complete answer the engine allows to keep alive, after the whole request body was sent with exactly
 * the framing the head announced, and only when no byte followed the answer (any byte the engine sends
 * after a complete answer, or before a request, destroys the connection): both directions end on a
 * message boundary, so one client's bytes can never be read as part of another client's exchange.
 * An answer framed by Content-Length (llhttp has checked the header) leaves the parser after its head,
 * and its body is passed on as views of the socket's chunks, counted here: llhttp would copy every body
 * chunk (docs/proxy-performance.md).
 */
import type net from 'node:net'
import type { EngineRequest, Exchange, ExchangeHandlers } from './exchange.js'
import type { HeadersCompleteArgs, Parser, ParserConstructor } from './node-http.js'
import { requestHead } from './request-head.js'

/** A pool of engine connections. */
export interface EnginePool {
  /** Sends one request on an idle (or new) connection. */
  exchange(request: EngineRequest, handlers: ExchangeHandlers): Exchange
  /** Destroys the idle connections. */
  close(): void
}

interface Connection {
  socket: net.Socket
  parser: Parser
  /** The exchange in progress; undefined while idle or after an abort. */
  current?: Pending
  /** The engine sent a byte outside the answer to the current request: never reused. */
  stray?: boolean
}

interface Pending {
  handlers: ExchangeHandlers
  isHead: boolean
  /** The engine's answer (or a 1xx before it) has begun: a second begin is a stray message. */
  messageBegun: boolean
  headSeen: boolean
  /** The final answer was parsed to its end. */
  complete: boolean
  keepAlive: boolean
  bodySent: boolean
  headers: string[]
  /** Bytes of a Content-Length body still to pass on as they came (0 while llhttp frames the body). */
  rawLeft: number
}

/** Node's parser stops after a head when its callback returns 2 (as for an upgrade). */
const stopAfterHead = 2

/** The Content-Length of an answer whose body is counted here, or 0 when llhttp frames it. */
function countedLength(status: number, rawHeaders: readonly string[]): number {
  if (status === 204 || status === 304) return 0
  let length = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase()
    if (name === 'transfer-encoding') return 0
    if (name === 'content-length') {
      const value = rawHeaders[i + 1]!
      if (!/^[0-9]{1,15}$/.test(value)) return 0
      length = Number(value)
    }
  }
  return length
}

function connectionLost(): NodeJS.ErrnoException {
  return Object.assign(new Error('the engine closed the connection'), { code: 'ECONNRESET' })
}

/** Builds a pool over `connect` (a fresh socket to the engine per call); keeps up to `maxFree` idle. */
export function createEnginePool(
  parserConstructor: ParserConstructor,
  connect: () => net.Socket,
  maxHeaderSize: number,
  maxFree = 64,
): EnginePool {
  const idle: Connection[] = []
  const resource = {}

  const release = (connection: Connection) => {
    if (idle.length >= maxFree || connection.socket.destroyed) {
      connection.socket.destroy()
      return
    }
    connection.socket.unref()
    connection.socket.resume()
    idle.push(connection)
  }

  const fail = (connection: Connection, error: NodeJS.ErrnoException) => {
    const pending = connection.current
    connection.current = undefined
    connection.socket.destroy()
    if (pending) pending.handlers.onError(error, pending.headSeen)
  }

  /** Ends a complete exchange: pooled only on a message boundary in both directions. */
  const settle = (connection: Connection, pending: Pending) => {
    connection.current = undefined
    pending.handlers.onEnd()
    if (pending.keepAlive && pending.bodySent) release(connection)
    else connection.socket.destroy()
  }

  const open = (): Connection => {
    const socket = connect()
    const parser = new parserConstructor()
    const connection: Connection = { socket, parser }
    parser[parserConstructor.kOnMessageBegin] = () => {
      const pending = connection.current
      if (!pending || pending.messageBegun) connection.stray = true
      else pending.messageBegun = true
      return 0
    }
    parser[parserConstructor.kOnHeaders] = (headers: string[]) => {
      connection.current?.headers.push(...headers)
    }
    parser[parserConstructor.kOnHeadersComplete] = (...head: HeadersCompleteArgs) => {
      const [, , headers, , , status, statusMessage, upgrade, keepAlive] = head
      const pending = connection.current
      if (!pending || connection.stray) return 0
      if (status >= 100 && status < 200 && status !== 101) {
        pending.headers = []
        pending.messageBegun = false
        return 0
      }
      if (upgrade || status === 101) {
        fail(connection, new Error('the engine switched protocols on a plain request'))
        return 0
      }
      pending.headSeen = true
      pending.keepAlive = keepAlive
      const rawHeaders = headers
        ? pending.headers.length
          ? [...pending.headers, ...headers]
          : headers
        : pending.headers
      pending.handlers.onHead(status, statusMessage ?? '', rawHeaders)
      if (pending.isHead) return 1
      pending.rawLeft = countedLength(status, rawHeaders)
      return pending.rawLeft > 0 ? stopAfterHead : 0
    }
    parser[parserConstructor.kOnBody] = (chunk: Buffer) => {
      const pending = connection.current
      if (pending && !connection.stray && !pending.handlers.onBody(chunk)) socket.pause()
    }
    parser[parserConstructor.kOnMessageComplete] = () => {
      const pending = connection.current
      if (!pending || !pending.headSeen || connection.stray || pending.rawLeft > 0) return
      pending.complete = true
    }
    /** Passes on the counted body's bytes in `chunk` from `from`; any byte after it is stray. */
    const countBody = (pending: Pending, chunk: Buffer, from: number) => {
      const take = Math.min(pending.rawLeft, chunk.length - from)
      pending.rawLeft -= take
      if (from + take < chunk.length) connection.stray = true
      if (take > 0 && !pending.handlers.onBody(chunk.subarray(from, from + take))) socket.pause()
      if (pending.rawLeft === 0) pending.complete = true
    }
    socket.on('data', (chunk: Buffer) => {
      const pending = connection.current
      if (!pending || pending.complete) {
        socket.destroy()
        return
      }
      let result: number | Error = 0
      if (pending.rawLeft === 0) {
        try {
          result = parser.execute(chunk)
        } catch (error) {
          result = error as Error
        }
      }
      if (
        pending.rawLeft > 0 &&
        typeof result === 'number' &&
        !connection.stray &&
        connection.current === pending
      )
        countBody(pending, chunk, result)
      if (connection.stray && pending.complete && connection.current === pending) {
        pending.keepAlive = false
        settle(connection, pending)
      } else if (connection.stray) fail(connection, new Error('the engine sent bytes outside an answer'))
      else if (result instanceof Error) fail(connection, result)
      else if (pending.complete && connection.current === pending) settle(connection, pending)
    })
    socket.on('end', () => {
      if (connection.current && connection.current.rawLeft > 0) return fail(connection, connectionLost())
      const result = parser.finish()
      const pending = connection.current
      if (result instanceof Error) fail(connection, result)
      else if (pending?.complete && !connection.stray) {
        pending.keepAlive = false
        settle(connection, pending)
      }
      socket.destroy()
    })
    socket.on('error', (error: NodeJS.ErrnoException) => fail(connection, error))
    socket.on('close', () => {
      const index = idle.indexOf(connection)
      if (index !== -1) idle.splice(index, 1)
      if (connection.current) fail(connection, connectionLost())
      parser.close()
    })
    return connection
  }

  /** Streams the body with back-pressure, framed as the head announced; a length mismatch fails. */
  const sendBody = (connection: Connection, pending: Pending, request: EngineRequest) => {
    const socket = connection.socket
    const body = request.body!
    const chunked = request.bodyLength === undefined
    let sent = 0
    const onDrain = () => body.resume()
    socket.on('drain', onDrain)
    body.on('data', (chunk: Buffer) => {
      if (connection.current !== pending || chunk.length === 0) return
      sent += chunk.length
      if (!chunked && sent > request.bodyLength!) {
        fail(connection, new Error('the request body is longer than its Content-Length'))
        return
      }
      let written: boolean
      if (chunked) {
        socket.cork()
        socket.write(`${chunk.length.toString(16)}\r\n`)
        socket.write(chunk)
        written = socket.write('\r\n')
        socket.uncork()
      } else written = socket.write(chunk)
      if (!written) body.pause()
    })
    body.on('end', () => {
      socket.off('drain', onDrain)
      if (connection.current !== pending) return
      if (!chunked && sent !== request.bodyLength) {
        if (connection.current === pending) fail(connection, connectionLost())
        else socket.destroy()
        return
      }
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n')
      pending.bodySent = true
    })
    body.on('error', () => {
      socket.off('drain', onDrain)
      if (connection.current === pending) fail(connection, connectionLost())
      else socket.destroy()
    })
  }

  return {
    exchange(request, handlers) {
      let head: string
      try {
        head = requestHead(request)
      } catch (error) {
        process.nextTick(() => handlers.onError(error as NodeJS.ErrnoException, false))
        return { resume: () => {}, abort: () => {} }
      }
      const connection = idle.pop() ?? open()
      const pending: Pending = {
        handlers,
        isHead: request.method === 'HEAD',
        messageBegun: false,
        headSeen: false,
        complete: false,
        keepAlive: false,
        bodySent: request.body === undefined,
        headers: [],
        rawLeft: 0,
      }
      connection.current = pending
      connection.parser.initialize(
        parserConstructor.RESPONSE,
        resource,
        maxHeaderSize,
        parserConstructor.kLenientNone,
      )
      connection.socket.ref()
      connection.socket.write(head, 'latin1')
      if (request.body) sendBody(connection, pending, request)
      return {
        resume: () => {
          if (connection.current === pending) connection.socket.resume()
        },
        abort: () => {
          if (connection.current !== pending) return
          connection.current = undefined
          connection.socket.destroy()
        },
      }
    },
    close() {
      for (const connection of idle.splice(0)) connection.socket.destroy()
    },
  }
}
