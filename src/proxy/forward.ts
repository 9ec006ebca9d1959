/**
 * Plain HTTP forwarding: decide on the canonical path, refuse with a JSON message the Docker CLI
 * prints, or forward over the keep-alive pool, streaming both bodies with back-pressure and no
 * buffering or idle timeout. Request bodies are re-framed, so no smuggled bytes reach the engine.
 */
import type http from 'node:http'
import { clientOf, clockMs, logRequest, type ProxyContext, type RequestRecord } from './context.js'
import { endToEndHeaders, messageBody, refusalMessage, unreachableReason } from './headers.js'
import { decideTarget } from './rules.js'

function sendMessage(res: http.ServerResponse, status: number, message: string, close: boolean): void {
  const body = messageBody(message)
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...(close ? { Connection: 'close' } : {}),
  })
  res.end(body)
}

function hasHeader(rawHeaders: readonly string[], lowerCaseName: string): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) return true
  }
  return false
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
  const startedAt = clockMs()
  const method = req.method!
  const record = (fields: Omit<RequestRecord, 'method' | 'client' | 'startedAt'>) =>
    logRequest(context, { method, client: clientOf(req.socket), startedAt, ...fields })
  const decision = decideTarget(context.rules, method, req.url!)
  if (!decision.valid) {
    const status = req.url === '*' ? 403 : 400
    sendMessage(res, status, refusalMessage(method, req.url!, decision.reason), true)
    record({ path: req.url!, status, decision: 'invalid', reason: decision.reason })
    return
  }
  const path = decision.canonicalPath
  if (!decision.allowed) {
    sendMessage(res, 403, refusalMessage(method, path), hasBody(req))
    record({ path, status: 403, decision: 'deny' })
    return
  }
  const transferEncoding = req.headers['transfer-encoding']
  if (transferEncoding !== undefined && transferEncoding.trim().toLowerCase() !== 'chunked') {
    const reason = 'only "Transfer-Encoding: chunked" is accepted'
    sendMessage(res, 400, refusalMessage(method, path, reason), true)
    record({ path, status: 400, decision: 'invalid', reason })
    return
  }
  const body = hasBody(req) ? req : undefined
  const exchange = context.backend.exchange(
    {
      method,
      target: decision.forwardTarget,
      headers: endToEndHeaders(req.rawHeaders),
      body,
      chunked: transferEncoding !== undefined,
    },
    {
      onHead(status, statusMessage, rawHeaders) {
        const responseHeaders = endToEndHeaders(rawHeaders)
        if (context.shuttingDown) responseHeaders.push('Connection', 'close')
        res.writeHead(status, statusMessage, responseHeaders)
        if (!hasHeader(rawHeaders, 'content-length')) res.flushHeaders()
        if (context.logger.enabled('debug')) record({ path, status, decision: 'allow', rule: decision.rule })
      },
      onBody(chunk) {
        if (res.write(chunk)) return true
        res.once('drain', () => exchange.resume())
        return false
      },
      onEnd: () => res.end(),
      onError(error, afterHead) {
        if (afterHead || res.headersSent) {
          res.destroy()
          return
        }
        const reason = unreachableReason(error)
        sendMessage(res, 502, `vault proxy: ${reason}`, true)
        record({ path, status: 502, decision: 'error', rule: decision.rule, reason })
      },
    },
  )
  res.on('close', () => {
    if (!res.writableFinished) exchange.abort()
  })
  if (body) req.on('error', () => exchange.abort())
  else req.resume()
}
