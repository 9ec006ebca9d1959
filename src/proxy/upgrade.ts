/**
 * Upgrades (attach, exec start): the request is decided like any other, its declared body is passed
 * on, and a raw two-way tunnel opens only when the engine really answers 101. Bytes that follow the
 * body wait until then; half-closes pass both ways. A non-101 answer is relayed and the connection
 * closed, so upgrade headers cannot be used to slip a second request to the engine.
 */
import type http from 'node:http'
import type net from 'node:net'
import { clientOf, clockMs, logRequest, type ProxyContext, type RequestRecord } from './context.js'
import { endToEndHeaders, rawJsonResponse, refusalMessage, unreachableReason } from './headers.js'
import { decideTarget } from './rules.js'

const maxUpgradeBody = 1 << 20

function refuse(socket: net.Socket, status: number, message: string): void {
  socket.end(rawJsonResponse(status, message))
  socket.setTimeout(5_000, () => socket.destroy())
}

function readBody(
  socket: net.Socket,
  head: Buffer,
  length: number,
): Promise<{ body: Buffer; early: Buffer }> {
  if (head.length >= length)
    return Promise.resolve({ body: head.subarray(0, length), early: head.subarray(length) })
  return new Promise((resolve, reject) => {
    const chunks = [head]
    let received = head.length
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      received += chunk.length
      if (received < length) return
      socket.pause()
      socket.off('data', onData)
      socket.off('end', onEnd)
      const all = Buffer.concat(chunks)
      resolve({ body: all.subarray(0, length), early: all.subarray(length) })
    }
    const onEnd = () => reject(new Error('the client closed before sending the whole body'))
    socket.on('data', onData)
    socket.once('end', onEnd)
    socket.resume()
  })
}

function tunnel(
  context: ProxyContext,
  client: net.Socket,
  engine: net.Socket,
  engineHead: Buffer,
  early: Buffer,
) {
  context.tunnels.add(engine)
  client.setTimeout(0)
  engine.setTimeout(0)
  if (engineHead.length > 0) client.write(engineHead)
  if (early.length > 0) engine.write(early)
  const closeBoth = () => {
    client.destroy()
    engine.destroy()
  }
  client.on('error', closeBoth)
  engine.on('error', closeBoth)
  engine.on('close', () => {
    context.tunnels.delete(engine)
    if (!client.writableEnded) client.end()
  })
  client.on('close', () => engine.destroy())
  client.pipe(engine)
  engine.pipe(client)
  client.resume()
}

function responseHead(response: http.IncomingMessage, extra: string[]): string {
  const headers = [...endToEndHeaders(response.rawHeaders), ...extra]
  let text = `HTTP/1.1 ${response.statusCode} ${response.statusMessage ?? ''}\r\n`
  for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`
  return `${text}\r\n`
}

/** Handles a request that asks for an upgrade (`Connection: Upgrade`). */
export async function handleUpgrade(
  context: ProxyContext,
  req: http.IncomingMessage,
  socket: net.Socket,
  head: Buffer,
): Promise<void> {
  const startedAt = clockMs()
  const method = req.method!
  const client = clientOf(socket)
  socket.pause()
  socket.on('error', () => socket.destroy())
  const record = (fields: Omit<RequestRecord, 'method' | 'client' | 'startedAt'>) =>
    logRequest(context, { method, client, startedAt, ...fields })
  const decision = decideTarget(context.rules, method, req.url!)
  if (!decision.valid) {
    refuse(socket, 400, refusalMessage(method, req.url!, decision.reason))
    return record({ path: req.url!, status: 400, decision: 'invalid', reason: decision.reason })
  }
  const path = decision.canonicalPath
  if (!decision.allowed) {
    refuse(socket, 403, refusalMessage(method, path))
    return record({ path, status: 403, decision: 'deny' })
  }
  const length = Number(req.headers['content-length'] ?? 0)
  if (
    req.headers['transfer-encoding'] !== undefined ||
    !Number.isSafeInteger(length) ||
    length > maxUpgradeBody
  ) {
    const reason = 'an upgrade request needs a Content-Length body of at most 1 MB'
    refuse(socket, 400, refusalMessage(method, path, reason))
    return record({ path, status: 400, decision: 'invalid', reason })
  }
  let body: Buffer
  let early: Buffer
  try {
    ;({ body, early } = await readBody(socket, head, length))
  } catch {
    socket.destroy()
    return
  }
  const headers = [
    ...endToEndHeaders(req.rawHeaders),
    'Connection',
    'Upgrade',
    'Upgrade',
    String(req.headers.upgrade ?? 'tcp'),
  ]
  const engineRequest = context.backend.requestOnOwnConnection({
    method,
    path: decision.forwardTarget,
    headers,
  })
  engineRequest.on('upgrade', (response, engineSocket, engineHead) => {
    socket.write(
      responseHead(response, ['Connection', 'Upgrade', 'Upgrade', String(response.headers.upgrade ?? 'tcp')]),
    )
    record({ path, status: 101, decision: 'allow', rule: decision.rule })
    tunnel(context, socket, engineSocket, engineHead, early)
  })
  engineRequest.on('response', (response) => {
    socket.write(responseHead(response, ['Connection', 'close']))
    record({ path, status: response.statusCode!, decision: 'allow', rule: decision.rule })
    response.pipe(socket)
    response.on('error', () => socket.destroy())
  })
  engineRequest.on('error', (error: NodeJS.ErrnoException) => {
    const reason = unreachableReason(error)
    refuse(socket, 502, `vault proxy: ${reason}`)
    record({ path, status: 502, decision: 'error', rule: decision.rule, reason })
  })
  socket.on('close', () => engineRequest.destroy())
  engineRequest.end(body)
}
