/**
 * Plain HTTP forwarding: decide on the canonical path, refuse with a JSON message the Docker CLI
 * prints, or forward over the keep-alive pool, streaming both bodies with back-pressure. The proxy
 * frames what it forwards: the request body exactly as Node's parser delivered it, under the proxy's
 * own Content-Length or chunked encoding; a framing it cannot be sure of is refused with 400 and the
 * connection closed. `100 Continue` is sent only for a request that will be forwarded. The engine's
 * answer reaches the client through `relayResponse`, the one place a response transform plugs in.
 */
import type http from 'node:http'
import { Readable } from 'node:stream'
import type { ClientReply, ClientRequest } from './client-side.js'
import { clientOf, clockMs, logRequest, type ProxyContext, type RequestRecord } from './context.js'
import type { ExchangeHandlers, Exchange } from './exchange.js'
import { endToEndHeaders, framedLength, messageBody, refusalMessage, unreachableReason } from './headers.js'
import { environmentRefusal } from './env-refusal.js'
import { answerIsHeld } from './inspect-redact.js'
import { withEnvMasking } from './masked-relay.js'
import { containerReader } from './container-environment.js'
import { UnsafeHeadError } from './request-head.js'
import { chooseRuleSet } from './rule-choice.js'
import { bodyLengthOf, framingProblem } from './framing.js'
import { bodyRefusal } from './guard-endpoints.js'
import { guardBodyLimit, judgeBody, planGuard, type Refusal } from './guard.js'
import { readWholeBody } from './read-body.js'
import { engineReader } from './compose-policy/engine-read.js'
import { planComposeRequest } from './compose-policy/routes.js'
import { decideTarget, type Rule } from './rules.js'

function sendMessage(res: ClientReply, status: number, message: string, close: boolean): void {
  const body = messageBody(message)
  const headers = ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body))]
  if (close) headers.push('Connection', 'close')
  res.writeHead(status, undefined, headers)
  res.end(body)
}

/** A bodiless request's body, read whole (nothing to wait for). */
const noBody = Promise.resolve({ kind: 'whole' as const, body: Buffer.alloc(0) })

/** Reads the request's body whole for a decision on it (read-body.ts); a bodiless one at once. */
function wholeBody(client: ClientRequest, bodyLength: number | 'chunked', stallMs: number) {
  if (bodyLength === 0) return noBody
  return readWholeBody(streamOf(client), guardBodyLimit, stallMs)
}

/** The stream of a request that has a body (only node:http's path takes those). */
function streamOf(client: ClientRequest): http.IncomingMessage {
  if (!client.body) throw new Error('a request with a body reached the forwarder without its stream')
  return client.body
}

/** What relayResponse calls back: the exchange it relays, a failure before the head, a head sent. */
interface RelayHooks {
  getExchange: () => Exchange
  onError: (error: NodeJS.ErrnoException) => void
  onHeadSent: (status: number) => void
}

/**
 * The handlers that carry the engine's answer to the client: status and end-to-end headers with the
 * proxy's own framing (the engine's Content-Length when its body was framed by it, else chunked),
 * then the body with back-pressure. A response transform (a filtered inspect body) belongs here.
 */
function relayResponse(context: ProxyContext, res: ClientReply, hooks: RelayHooks): ExchangeHandlers {
  const { getExchange, onError, onHeadSent } = hooks
  return {
    onHead(status, statusMessage, rawHeaders) {
      const responseHeaders = endToEndHeaders(rawHeaders)
      const length = framedLength(rawHeaders)
      if (length !== undefined) responseHeaders.push('Content-Length', length)
      if (context.shuttingDown) responseHeaders.push('Connection', 'close')
      res.writeHead(status, statusMessage, responseHeaders)
      if (length === undefined) res.flushHeaders()
      onHeadSent(status)
    },
    onBody(chunk) {
      if (res.write(chunk)) return true
      res.once('drain', () => getExchange().resume())
      return false
    },
    onEnd: () => res.end(),
    onError(error, afterHead) {
      if (afterHead || res.headersSent) res.destroy()
      else onError(error)
    },
  }
}

/**
 * Handles one ordinary (non-upgrade) request; `expectsContinue` when the client waits for
 * `100 Continue`, which is sent only once the request is going to be forwarded.
 */
export function handleRequest(context: ProxyContext, client: ClientRequest, expectsContinue = false): void {
  const { req, res } = client
  const startedAt = clockMs()
  const method = req.method!
  const record = (fields: Omit<RequestRecord, 'method' | 'client' | 'startedAt'>) =>
    logRequest(context, { method, client: clientOf(req.socket, context.frontend), startedAt, ...fields })
  const choice = chooseRuleSet(context.ruleSets, req.socket, context.frontend)
  if (!choice.ruleSet) {
    sendMessage(res, 403, `vault proxy refused ${method} ${req.url!}: ${choice.refusal}`, true)
    record({ path: req.url!, status: 403, decision: 'deny', reason: choice.refusal })
    return
  }
  const decision = decideTarget(choice.ruleSet.rules, method, req.url!)
  if (!decision.valid) {
    const status = req.url === '*' ? 403 : 400
    sendMessage(res, status, refusalMessage(method, req.url!, decision.reason), true)
    record({ path: req.url!, status, decision: 'invalid', reason: decision.reason })
    return
  }
  const path = decision.canonicalPath
  const problem = framingProblem(req)
  if (problem !== undefined) {
    const [status, reason] = problem
    sendMessage(res, status, refusalMessage(method, path, reason), true)
    record({ path, status, decision: 'invalid', reason })
    return
  }
  const bodyLength = bodyLengthOf(req)
  const learning = context.learner?.begin({
    ruleSet: choice.ruleSet,
    client: clientOf(req.socket, context.frontend),
    method,
    path,
    rule: decision.rule,
  })
  if (!decision.allowed && !learning?.overrule()) {
    sendMessage(res, 403, refusalMessage(method, path), bodyLength !== 0 || expectsContinue)
    record({ path, status: 403, decision: 'deny' })
    return
  }
  const unmaskable = environmentRefusal(choice.ruleSet, method, path, decision.query)
  if (unmaskable !== undefined) {
    sendMessage(res, 403, refusalMessage(method, path, unmaskable), bodyLength !== 0 || expectsContinue)
    record({ path, status: 403, decision: 'deny', reason: unmaskable })
    return
  }
  const ruleSet = choice.ruleSet.name
  const bodyRefused = bodyLength === 0 ? undefined : bodyRefusal(method, path)
  if (bodyRefused !== undefined) {
    sendMessage(res, 403, refusalMessage(method, path, bodyRefused), true)
    record({ path, status: 403, decision: 'deny', reason: bodyRefused, ruleSet, field: 'body' })
    return
  }
  const refuseForGuard = (refusal: Refusal, close: boolean, by = 'host-escape guard') => {
    const reason = `${by}: ${refusal.reason}`
    sendMessage(res, 403, refusalMessage(method, path, reason), close)
    record({
      path,
      status: 403,
      decision: 'deny',
      reason,
      ruleSet,
      field: refusal.field,
      rule: decision.rule,
    })
  }
  const policy =
    context.composePolicy &&
    planComposeRequest(context.composePolicy, context.guard, { method, path, query: decision.query })
  if (policy && policy.action === 'refuse')
    return refuseForGuard(policy.refusal, bodyLength !== 0 || expectsContinue, 'compose policy')
  const plan =
    policy?.action === 'decide'
      ? { action: 'pass' as const }
      : planGuard(context.guard, { method, path, query: decision.query, hasBody: bodyLength !== 0 })
  if (plan.action === 'refuse' && !learning?.overrule(plan.refusal))
    return refuseForGuard(plan.refusal, bodyLength !== 0 || expectsContinue)
  const forwarded = {
    path,
    target: decision.forwardTarget,
    rule: decision.rule,
    bodyLength,
    maskEnv: choice.ruleSet.redactEnv,
  }
  if (policy?.action === 'decide') {
    // The compose policy decides on the whole body and on what the engine says of the container or
    // network named (compose-policy/routes.ts); the request may go on for the object's id instead.
    if (expectsContinue) res.writeContinue()
    void wholeBody(client, bodyLength, context.timeouts.bodyStallMs)
      .then(async (read) => {
        if (read.kind === 'gone') return
        if (read.kind === 'too-large')
          return refuseForGuard(
            { field: 'body', reason: `the body is larger than ${guardBodyLimit} bytes` },
            true,
          )
        const body = { body: read.body, contentType: req.headers['content-type'] }
        const verdict = await policy.decide(body, engineReader(context.backend))
        if ('reason' in verdict) return refuseForGuard(verdict, false, 'compose policy')
        const target = verdict.target ?? forwarded.target
        forward(
          context,
          client,
          { ...forwarded, target, bodyLength: read.body.length, buffered: read.body },
          record,
        )
      })
      .catch((error: Error) =>
        refuseForGuard(
          { field: 'engine', reason: `the request could not be decided (${error.message})` },
          true,
          'compose policy',
        ),
      )
    return
  }
  if (plan.action === 'read-body') {
    if (expectsContinue) res.writeContinue()
    void wholeBody(client, bodyLength, context.timeouts.bodyStallMs).then((read) => {
      if (read.kind === 'gone') return
      if (read.kind === 'too-large')
        return refuseForGuard(
          { field: 'body', reason: `the body is larger than ${guardBodyLimit} bytes` },
          true,
        )
      const contentType = req.headers['content-type']
      const request = { query: decision.query, contentType, body: read.body }
      const refusal = learning
        ? learning.judge(plan.kind, request)
        : judgeBody(plan.kind, request, context.guard)
      if (refusal) return refuseForGuard(refusal, false)
      learning?.forwarded()
      forward(context, client, { ...forwarded, bodyLength: read.body.length, buffered: read.body }, record)
    })
    return
  }
  learning?.forwarded()
  forward(context, client, forwarded, record)
  if (expectsContinue && !res.headersSent) res.writeContinue()
}

interface Forwarded {
  path: string
  target: string
  rule: Rule | undefined
  bodyLength: number | 'chunked'
  /** Whether answers carrying container environment are masked (the rule set's choice). */
  maskEnv: boolean
  /** The whole body, already read (for the guard): forwarded as these exact bytes. */
  buffered?: Buffer
}

function forward(
  context: ProxyContext,
  client: ClientRequest,
  forwarded: Forwarded,
  record: (fields: Omit<RequestRecord, 'method' | 'client' | 'startedAt'>) => void,
): void {
  const { req, res } = client
  const { path, rule, bodyLength } = forwarded
  const buffered = forwarded.buffered
  const body =
    bodyLength === 0
      ? undefined
      : buffered
        ? Readable.from([buffered], { objectMode: false })
        : streamOf(client)
  const onHeadSent = (status: number) => {
    if (context.logger.enabled('debug')) record({ path, status, decision: 'allow', rule })
  }
  const relay = relayResponse(context, res, {
    getExchange: () => exchange,
    onError: (error) => {
      if (error instanceof UnsafeHeadError || error.code === 'ERR_INVALID_CHAR') {
        const reason = `the request cannot be forwarded safely (${error.message})`
        sendMessage(res, 400, refusalMessage(req.method!, path, reason), true)
        return record({ path, status: 400, decision: 'invalid', reason })
      }
      const reason = unreachableReason(error)
      sendMessage(res, 502, `vault proxy: ${reason}`, true)
      record({ path, status: 502, decision: 'error', rule, reason })
    },
    onHeadSent,
  })
  const holder = forwarded.maskEnv ? context.heldAnswers.holder(() => res.destroy()) : undefined
  if (holder) {
    res.once('finish', () => holder.release())
    res.once('close', () => holder.release())
  }
  const handlers: ExchangeHandlers = !forwarded.maskEnv
    ? relay
    : withEnvMasking(
        relay,
        { method: req.method!, path, target: forwarded.target },
        {
          getExchange: () => exchange,
          reply: {
            whole(status, statusMessage, rawHeaders, masked) {
              const headers = [...endToEndHeaders(rawHeaders), 'Content-Length', String(masked.length)]
              if (context.shuttingDown) headers.push('Connection', 'close')
              res.writeHead(status, statusMessage, headers)
              res.end(masked)
              slot?.done()
              holder!.evictable = true
              // Masking left about four copies of the answer behind (text, parsed, serialised, bytes).
              context.heldAnswers.discarded(masked.length * 4)
              onHeadSent(status)
            },
            error(status, message) {
              slot?.done()
              sendMessage(res, status, message, true)
              record({ path, status, decision: 'error', rule, reason: message })
            },
          },
          readContainer: containerReader(context.backend),
          holder,
        },
      )
  const start = (): Exchange =>
    context.backend.exchange(
      {
        method: req.method!,
        target: forwarded.target,
        headers: endToEndHeaders(req.rawHeaders),
        body,
        bodyLength: bodyLength === 'chunked' ? undefined : bodyLength,
      },
      handlers,
    )
  const slot: { exchange: Exchange; done: () => void } | undefined =
    holder && !body && answerIsHeld(req.method!, path) ? context.maskedSlots.run(start) : undefined
  const exchange: Exchange = slot ? slot.exchange : start()
  if (slot) {
    res.once('finish', slot.done)
    res.once('close', slot.done)
  }
  res.on('close', () => {
    if (!res.writableFinished) exchange.abort()
  })
  if (!body || buffered) {
    client.body?.resume()
    return
  }
  const stream = streamOf(client)
  stream.on('error', () => exchange.abort())
  // A body that stalls on the client's side closes the connection; one paused because the engine reads
  // slowly (back-pressure) is waited for.
  const stallMs = context.timeouts.bodyStallMs
  stream.setTimeout(stallMs, () => {
    if (stream.complete) return
    if (stream.isPaused()) stream.socket.setTimeout(stallMs)
    else stream.socket.destroy()
  })
  stream.once('end', () => stream.setTimeout(0))
}
