/**
 * Upgrades (attach, exec start): the request is decided like any other, its declared body is streamed
 * to the engine under the proxy's own Content-Length (never buffered), and a raw two-way tunnel opens
 * only when the engine really answers 101. Bytes that follow the body stay in the client socket (paused)
 * until then; half-closes pass both ways. A non-101 answer is relayed and the connection closed, so
 * upgrade headers cannot be used to slip a second request to the engine. A request whose answer the rule
 * set masks (inspect-redact.ts) is refused: a non-101 answer here is relayed as is. A body that stalls,
 * or an engine that does not answer, times out.
 */
import type http from 'node:http'
import type net from 'node:net'
import {
  clientOf,
  clockMs,
  logRequest,
  type ProxyContext,
  type ProxyTimeouts,
  type RequestRecord,
} from './context.js'
import {
  endToEndHeaders,
  framedLength,
  rawJsonResponse,
  refusalMessage,
  unreachableReason,
} from './headers.js'
import { chooseRuleSet } from './rule-choice.js'
import { framingProblem } from './framing.js'
import { bodyRefusal } from './guard-endpoints.js'
import { planGuard } from './guard.js'
import { environmentRefusal } from './env-refusal.js'
import { answerIsMasked } from './inspect-redact.js'
import { decideTarget } from './rules.js'
import { planComposeRequest } from './compose-policy/routes.js'

/** The largest body an upgrade request may declare (exec start and attach send a few hundred bytes). */
const maxUpgradeBody = 1 << 20

function refuse(socket: net.Socket, status: number, message: string): void {
  socket.end(rawJsonResponse(status, message))
  socket.setTimeout(5_000, () => socket.destroy())
}

/**
 * Streams exactly `length` body bytes (those in `head` first) from the client to the engine request with
 * back-pressure, then ends it; any byte after the body goes back into the paused client socket.
 */
function streamBody(
  timeouts: ProxyTimeouts,
  client: { socket: net.Socket; head: Buffer },
  length: number,
  engineRequest: http.ClientRequest,
) {
  const { socket, head } = client
  let remaining = length
  const take = (chunk: Buffer): boolean => {
    const part = chunk.subarray(0, remaining)
    remaining -= part.length
    const written = part.length === 0 || engineRequest.write(part)
    if (chunk.length > part.length) socket.unshift(chunk.subarray(part.length))
    return written
  }
  const onEnd = () => socket.destroy()
  const finish = () => {
    socket.pause()
    socket.off('data', onData)
    socket.off('end', onEnd)
    socket.setTimeout(timeouts.upgradeAnswerMs)
    engineRequest.end()
  }
  const onData = (chunk: Buffer) => {
    socket.pause()
    const written = take(chunk)
    if (remaining === 0) finish()
    else if (written) socket.resume()
    else engineRequest.once('drain', () => socket.resume())
  }
  if (head.length > 0) take(head)
  if (remaining === 0) return finish()
  socket.setTimeout(timeouts.bodyStallMs)
  socket.once('end', onEnd)
  socket.on('data', onData)
  socket.resume()
}

function tunnel(context: ProxyContext, client: net.Socket, engine: net.Socket, engineHead: Buffer) {
  context.tunnels.add(engine)
  client.setTimeout(0)
  engine.setTimeout(0)
  if (engineHead.length > 0) client.write(engineHead)
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
  const length = framedLength(response.rawHeaders)
  const headers = [
    ...endToEndHeaders(response.rawHeaders),
    ...(length === undefined ? [] : ['Content-Length', length]),
    ...extra,
  ]
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
  const client = clientOf(socket, context.frontend)
  socket.pause()
  socket.on('error', () => socket.destroy())
  socket.on('timeout', () => socket.destroy())
  const record = (fields: Omit<RequestRecord, 'method' | 'client' | 'startedAt'>) =>
    logRequest(context, { method, client, startedAt, ...fields })
  const choice = chooseRuleSet(context.ruleSets, socket, context.frontend)
  if (!choice.ruleSet) {
    refuse(socket, 403, `vault proxy refused ${method} ${req.url!}: ${choice.refusal}`)
    return record({ path: req.url!, status: 403, decision: 'deny', reason: choice.refusal })
  }
  const decision = decideTarget(choice.ruleSet.rules, method, req.url!)
  if (!decision.valid) {
    refuse(socket, 400, refusalMessage(method, req.url!, decision.reason))
    return record({ path: req.url!, status: 400, decision: 'invalid', reason: decision.reason })
  }
  const path = decision.canonicalPath
  const learning = context.learner?.begin({
    ruleSet: choice.ruleSet,
    client,
    method,
    path,
    rule: decision.rule,
  })
  if (!decision.allowed && !learning?.overrule()) {
    refuse(socket, 403, refusalMessage(method, path))
    return record({ path, status: 403, decision: 'deny' })
  }
  const unmaskable = environmentRefusal(choice.ruleSet, method, path, decision.query)
  if (unmaskable !== undefined) {
    refuse(socket, 403, refusalMessage(method, path, unmaskable))
    return record({ path, status: 403, decision: 'deny', reason: unmaskable })
  }
  if (choice.ruleSet.redactEnv && answerIsMasked(method, path)) {
    const reason = 'its answer carries container environment values, which are masked only without an upgrade'
    refuse(socket, 400, refusalMessage(method, path, reason))
    return record({ path, status: 400, decision: 'invalid', reason })
  }
  const problem = framingProblem(req)
  if (problem !== undefined) {
    const [status, reason] = problem
    refuse(socket, status, refusalMessage(method, path, reason))
    return record({ path, status, decision: 'invalid', reason })
  }
  const declared = req.headers['content-length'] ?? '0'
  const length = Number(declared)
  if (
    req.headers['transfer-encoding'] !== undefined ||
    !/^[0-9]{1,7}$/.test(declared) ||
    length > maxUpgradeBody
  ) {
    const reason = 'an upgrade request needs a Content-Length body of at most 1 MB'
    refuse(socket, 400, refusalMessage(method, path, reason))
    return record({ path, status: 400, decision: 'invalid', reason })
  }
  const bodyRefused = length === 0 ? undefined : bodyRefusal(method, path)
  if (bodyRefused !== undefined) {
    refuse(socket, 403, refusalMessage(method, path, bodyRefused))
    return record({
      path,
      status: 403,
      decision: 'deny',
      reason: bodyRefused,
      ruleSet: choice.ruleSet.name,
      field: 'body',
    })
  }
  const policy =
    context.composePolicy &&
    planComposeRequest(context.composePolicy, context.guard, { method, path, query: decision.query })
  const plan =
    policy && policy.action !== 'pass'
      ? {
          action: 'refuse' as const,
          refusal: {
            field: 'endpoint',
            reason: 'the compose policy decides this endpoint, never as an upgrade',
          },
        }
      : planGuard(context.guard, { method, path, query: decision.query, hasBody: length > 0 })
  if (plan.action !== 'pass' && !(plan.action === 'refuse' && learning?.overrule(plan.refusal))) {
    const refusal =
      plan.action === 'refuse'
        ? plan.refusal
        : { field: 'body', reason: 'a body the guard reads is refused on a request that asks for an upgrade' }
    const reason = `host-escape guard: ${refusal.reason}`
    refuse(socket, 403, refusalMessage(method, path, reason))
    return record({
      path,
      status: 403,
      decision: 'deny',
      reason,
      ruleSet: choice.ruleSet.name,
      field: refusal.field,
    })
  }
  const headers = [
    ...endToEndHeaders(req.rawHeaders),
    ...(length > 0 ? ['Content-Length', String(length)] : []),
    'Connection',
    'Upgrade',
    'Upgrade',
    String(req.headers.upgrade ?? 'tcp'),
  ]
  let engineRequest: http.ClientRequest
  try {
    engineRequest = context.backend.requestOnOwnConnection({ method, path: decision.forwardTarget, headers })
  } catch (error) {
    const reason = `the request cannot be forwarded (${(error as Error).message})`
    refuse(socket, 400, refusalMessage(method, path, reason))
    return record({ path, status: 400, decision: 'invalid', reason })
  }
  learning?.forwarded()
  engineRequest.on('upgrade', (response, engineSocket, engineHead) => {
    socket.write(
      responseHead(response, ['Connection', 'Upgrade', 'Upgrade', String(response.headers.upgrade ?? 'tcp')]),
    )
    record({ path, status: 101, decision: 'allow', rule: decision.rule })
    tunnel(context, socket, engineSocket, engineHead)
  })
  engineRequest.on('response', (response) => {
    socket.setTimeout(0)
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
  streamBody(context.timeouts, { socket, head }, length, engineRequest)
}
