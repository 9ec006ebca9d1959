/**
 * One forwarded request and its answer, as the forwarder sees it: what is sent (method, target, raw
 * headers, an optional body stream) and the callbacks through which the engine's answer arrives.
 * Two implementations: the lean keep-alive pool (engine-pool.ts) and one over a node:http(s) request
 * function (used for an engine behind TLS).
 */
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http'
import type { Readable } from 'node:stream'

/** The request to send to the engine. */
export interface EngineRequest {
  method: string
  /** The request target (canonical path, encoded, plus the original query). */
  target: string
  /** End-to-end headers, flat `[name, value, ...]`, without framing headers: the proxy frames the body. */
  headers: string[]
  /** The request body, exactly as Node's parser delivered it. */
  body?: Readable
  /** The body's length when the client declared one (sent as the proxy's Content-Length); else chunked. */
  bodyLength?: number
}

/** Where the engine's answer goes. */
export interface ExchangeHandlers {
  /** The status line and the headers (raw, flat). */
  onHead(status: number, statusMessage: string, rawHeaders: string[]): void
  /** A body chunk; returning false pauses the engine until `resume()`. */
  onBody(chunk: Buffer): boolean
  onEnd(): void
  /** The exchange failed; `afterHead` tells whether `onHead` already ran. */
  onError(error: NodeJS.ErrnoException, afterHead: boolean): void
}

/** A running exchange. */
export interface Exchange {
  /** Resumes reading the engine's answer after `onBody` returned false. */
  resume(): void
  /** Gives up (the client went away): no handler runs afterwards. */
  abort(): void
}

/** Runs an exchange over a node:http(s) `request` function (its agent pools the connections). */
export function exchangeViaRequest(
  request: (options: RequestOptions) => ClientRequest,
  engineRequest: EngineRequest,
  handlers: ExchangeHandlers,
  maxHeaderSize: number,
): Exchange {
  const headers = [...engineRequest.headers]
  if (engineRequest.body) {
    if (engineRequest.bodyLength === undefined) headers.push('Transfer-Encoding', 'chunked')
    else headers.push('Content-Length', String(engineRequest.bodyLength))
  }
  let response: IncomingMessage | undefined
  let done = false
  const finish = (report: () => void) => {
    if (done) return
    done = true
    report()
  }
  let req: ClientRequest
  try {
    req = request({ method: engineRequest.method, path: engineRequest.target, headers, maxHeaderSize })
  } catch (error) {
    process.nextTick(() => handlers.onError(error as NodeJS.ErrnoException, false))
    return { resume: () => {}, abort: () => {} }
  }
  req.on('response', (engineResponse: IncomingMessage) => {
    response = engineResponse
    handlers.onHead(engineResponse.statusCode!, engineResponse.statusMessage ?? '', engineResponse.rawHeaders)
    engineResponse.on('data', (chunk: Buffer) => {
      if (!done && !handlers.onBody(chunk)) engineResponse.pause()
    })
    engineResponse.on('end', () => finish(() => handlers.onEnd()))
    engineResponse.on('error', (error) => finish(() => handlers.onError(error, true)))
  })
  req.on('error', (error) => finish(() => handlers.onError(error, response !== undefined)))
  const body = engineRequest.body
  if (body) {
    body.on('error', () => req.destroy())
    body.pipe(req)
  } else req.end()
  return {
    resume: () => response?.resume(),
    abort: () => {
      done = true
      req.destroy()
    },
  }
}
