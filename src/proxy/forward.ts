/**
 * Plain HTTP forwarding: decide on the canonical path, refuse with a JSON message the Docker CLI
 * prints, or forward over the keep-alive pool, streaming both bodies with back-pressure and no
 * buffering or idle timeout. Request bodies are re-framed, so no smuggled bytes reach the engine.
 */
import type http from 'node:http'
import { clientOf, logRequest, type ProxyContext } from './context.js'
import { endToEndHeaders, messageBody, refusalMessage } from './headers.js'
import { decideTarget } from './rules.js'

const maxHeaderSize = 1 << 20

function sendMessage(res: http.ServerResponse, status: number, message: string, close: boolean): void {
  const body = messageBody(message)
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...(close ? { Connection: 'close' } : {}),
  })
  res.end(body)
}

function hasBody(req: http.IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
}

/** Handles one ordinary (non-upgrade) request. */
export function handleRequest(
  context: ProxyContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  const startedAt = performance.now()
  const method = req.method!
  const client = clientOf(req.socket)
  const decision = decideTarget(context.rules, method, req.url!)
  if (!decision.valid) {
    const status = req.url === '*' ? 403 : 400
    sendMessage(res, status, refusalMessage(method, req.url!, decision.reason), true)
    logRequest(context, {
      method,
      path: req.url!,
      status,
      decision: 'invalid',
      client,
      startedAt,
      reason: decision.reason,
    })
    return
  }
  const path = decision.canonicalPath
  if (!decision.allowed) {
    sendMessage(res, 403, refusalMessage(method, path), hasBody(req))
    logRequest(context, { method, path, status: 403, decision: 'deny', client, startedAt })
    return
  }
  const transferEncoding = req.headers['transfer-encoding']
  if (transferEncoding !== undefined && transferEncoding.trim().toLowerCase() !== 'chunked') {
    const reason = 'only "Transfer-Encoding: chunked" is accepted'
    sendMessage(res, 400, refusalMessage(method, path, reason), true)
    logRequest(context, { method, path, status: 400, decision: 'invalid', client, startedAt, reason })
    return
  }
  const headers = endToEndHeaders(req.rawHeaders)
  if (transferEncoding !== undefined) headers.push('Transfer-Encoding', 'chunked')
  const engineRequest = context.backend.request({
    method,
    path: decision.forwardTarget,
    headers,
    maxHeaderSize,
  })
  engineRequest.on('response', (engineResponse) => {
    const responseHeaders = endToEndHeaders(engineResponse.rawHeaders)
    if (context.shuttingDown) responseHeaders.push('Connection', 'close')
    res.writeHead(engineResponse.statusCode!, engineResponse.statusMessage, responseHeaders)
    if (engineResponse.headers['content-length'] === undefined) res.flushHeaders()
    logRequest(context, {
      method,
      path,
      status: engineResponse.statusCode!,
      decision: 'allow',
      client,
      startedAt,
      rule: decision.rule,
    })
    engineResponse.on('error', () => res.destroy())
    engineResponse.pipe(res)
  })
  engineRequest.on('error', (error: NodeJS.ErrnoException) => {
    if (res.headersSent) {
      res.destroy()
      return
    }
    const reason = `the engine is unreachable (${error.code ?? error.message})`
    sendMessage(res, 502, `vault proxy: ${reason}`, true)
    logRequest(context, {
      method,
      path,
      status: 502,
      decision: 'error',
      client,
      startedAt,
      rule: decision.rule,
      reason,
    })
  })
  res.on('close', () => {
    if (!res.writableFinished) engineRequest.destroy()
  })
  req.on('error', () => engineRequest.destroy())
  if (hasBody(req)) req.pipe(engineRequest)
  else {
    engineRequest.end()
    req.resume()
  }
}
