/**
 * Builds the proxy's HTTP (or HTTPS, optionally mutual-TLS) server: large headers and long uploads
 * accepted, heads that stall answered 408 after 10 s, malformed requests answered on their own
 * connection only (and that connection closed), connections admitted by admission.ts (cap, 503),
 * pipelined requests run one at a time, CONNECT refused, and a bounded graceful shutdown. On a plain
 * listener, ordinary requests are served by the lean client path (lean-connection.ts), which hands a
 * connection to the node:http server for anything else. Started by `runProxy`; tests call listen(0).
 */
import type http from 'node:http'
import type net from 'node:net'
import type { Backend } from './backend.js'
import { HTTPParser, http as nodeHttp, loadHttps, parserMethods } from './node-http.js'
import type { TlsMaterial } from './config.js'
import {
  clientOf,
  clockMs,
  defaultTimeouts,
  logRequest,
  type ProxyContext,
  type ProxyTimeouts,
} from './context.js'
import { handleRequest } from './forward.js'
import { rawJsonResponse, refusalMessage } from './headers.js'
import type { ProxyLogger } from './log.js'
import { everyoneSetName, type RuleSetConfig } from './rule-sets.js'
import { defaultGuardSettings } from './guard-settings.js'
import type { GuardSettings } from './guard.js'
import type { ComposePolicy } from './compose-policy/policy.js'
import type { Rule } from './rules.js'
import type { Learner } from './learn/learner.js'
import { admitConnections } from './admission.js'
import { fullCollection } from './exposed-gc.js'
import { createHeldBudget } from './held-budget.js'
import { createMaskedSlots } from './masked-slots.js'
import { chooseRuleSet } from './rule-choice.js'
import { oneAtATime } from './in-order.js'
import { handleUpgrade } from './upgrade.js'
import { watchHeads } from './head-watch.js'
import { leanPath, type LeanPath } from './lean-connection.js'

export interface ProxyServerOptions {
  /** One rule list for every client (tests and simple set-ups), or `ruleSets`. */
  rules?: readonly Rule[]
  /** Rule sets chosen per client; takes the place of `rules`. */
  ruleSets?: RuleSetConfig
  /** The frontend address the server will listen on, as configured (default `tcp://`). */
  frontend?: string
  backend: Backend
  logger: ProxyLogger
  /** Certificate and key for HTTPS; with `ca`, clients must present a certificate signed by it. */
  tls?: TlsMaterial
  /** Open client connections beyond which a new one is answered 503 and closed. */
  maxConnections?: number
  /** Open connections one source (peer address) may hold; an eighth of the cap unless given (TCP). */
  maxConnectionsPerSource?: number
  /** Smaller budgets for tests: bytes of unfinished heads, bytes of masked answers held whole. */
  budgets?: { headBytes: number; heldAnswerBytes: number }
  /** Shorter timeouts for tests; `defaultTimeouts` otherwise. */
  timeouts?: ProxyTimeouts
  /** The host-escape guard; on with its defaults unless given. */
  guard?: GuardSettings
  /** Learn mode (learn/learner.ts): absent when the proxy enforces. */
  learner?: Learner
  /** A compose policy (compose-policy/): what its project's compose files allow. */
  composePolicy?: ComposePolicy
}

/** The default connection cap (1,024 open connections stay under 64 MB: test/integration/proxy-abuse.test.ts). */
export const defaultMaxConnections = 1024

/** The share of the connection cap one source (peer address) may hold. */
export const sourceShare = 8

/** The largest request head (Docker's clients send under 8 KB; docker build's X-Registry-Config more). */
export const maxHeadBytes = 64 * 1024

/** Bytes all unfinished heads may hold together (what they cost the process: docs/proxy-performance.md). */
export const headBudgetBytes = 8 << 20

/** Answers held whole for masking asked of the engine at once (masked-slots.ts). */
export const maskedAtOnce = 2

/** Bytes all masked answers held whole may hold together (four of the largest, 1 MiB each; why not 8: docs/proxy-performance.md, "Floods"). */
export const heldAnswerBudgetBytes = 4 << 20

export interface ProxyServer {
  /** The listening server (plain: the admission listener in front of the HTTP server; TLS: the HTTPS server). */
  server: net.Server
  /** Stops accepting, lets requests finish, then closes streams and tunnels after `graceMs`. */
  shutdown(graceMs: number): Promise<void>
}

const serverOptions: http.ServerOptions = {
  maxHeaderSize: maxHeadBytes,
  requestTimeout: 0,
  connectionsCheckingInterval: 1_000,
  keepAliveTimeout: 5_000,
  noDelay: true,
}

/** Builds (does not start) a proxy server. */
export async function createProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const timeouts = options.timeouts ?? defaultTimeouts
  const context: ProxyContext = {
    ruleSets: options.ruleSets ?? {
      everyone: { name: everyoneSetName, rules: [...(options.rules ?? [])], redactEnv: false },
      sets: new Map(),
      selectors: [],
    },
    frontend: options.frontend ?? 'tcp://',
    timeouts,
    backend: options.backend,
    logger: options.logger,
    guard: options.guard ?? defaultGuardSettings,
    composePolicy: options.composePolicy,
    tunnels: new Set(),
    heldAnswers: createHeldBudget(options.budgets?.heldAnswerBytes ?? heldAnswerBudgetBytes, {
      collect: fullCollection,
      garbageBytes: 4 << 20,
    }),
    maskedSlots: createMaskedSlots(maskedAtOnce),
    shuttingDown: false,
    learner: options.learner,
  }
  const inOrder = oneAtATime((req, res, expectsContinue) =>
    handleRequest(context, { req, res, body: req }, expectsContinue),
  )
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => inOrder(req, res, false)
  let server: http.Server
  if (options.tls) {
    const https = loadHttps()
    const { ca, cert, key } = options.tls
    server = https.createServer(
      {
        ...serverOptions,
        headersTimeout: timeouts.headersMs,
        cert,
        key,
        ca,
        requestCert: ca !== undefined,
        rejectUnauthorized: ca !== undefined,
      },
      onRequest,
    )
  } else {
    server = nodeHttp.createServer({ ...serverOptions, headersTimeout: timeouts.headersMs }, onRequest)
  }
  server.timeout = 0
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => inOrder(req, res, true))
  server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    handleUpgrade(context, req, socket, head).catch(() => socket.destroy())
  })
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
    socket.on('error', () => socket.destroy())
    socket.end(rawJsonResponse(403, refusalMessage('CONNECT', req.url ?? '', 'CONNECT is never forwarded')))
    logRequest(context, {
      method: 'CONNECT',
      path: req.url ?? '',
      status: 403,
      decision: 'invalid',
      client: clientOf(socket, context.frontend),
      startedAt: clockMs(),
    })
  })
  server.on('clientError', (error: NodeJS.ErrnoException, socket: net.Socket) => {
    if (error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE' || !socket.writable) {
      socket.destroy()
      return
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
    socket.end(rawJsonResponse(status, `vault proxy: malformed request (${error.code ?? 'parse error'})`))
    options.logger.log('warning', 'malformed request', {
      status,
      client: clientOf(socket, context.frontend),
      reason: error.code,
    })
  })
  const heads = createHeldBudget(options.budgets?.headBytes ?? headBudgetBytes)
  const lean: LeanPath | undefined =
    options.tls || !HTTPParser || !parserMethods
      ? undefined
      : leanPath({
          parser: HTTPParser,
          methods: parserMethods,
          reasons: nodeHttp.STATUS_CODES,
          maxHeadBytes,
          keepAliveMs: serverOptions.keepAliveTimeout!,
          heads,
          serve: (req, res) => handleRequest(context, { req, res }),
          handOff(socket, held) {
            server.emit('connection', socket)
            watchHeads(socket, heads, held)
          },
        })
  const maxConnections = options.maxConnections ?? defaultMaxConnections
  const { listener, sockets, silent } = admitConnections(server, {
    maxConnections,
    maxConnectionsPerSource:
      options.maxConnectionsPerSource ??
      (context.frontend.startsWith('unix:')
        ? maxConnections
        : Math.max(1, Math.floor(maxConnections / sourceShare))),
    refusal: (socket) => {
      const choice = chooseRuleSet(context.ruleSets, socket, context.frontend)
      return choice.ruleSet ? undefined : `refused: ${choice.refusal}`
    },
    heads,
    serve: lean?.serve,
    silentMs: timeouts.headersMs,
    logger: options.logger,
    tls: options.tls !== undefined,
    frontend: context.frontend,
  })
  return {
    server: listener,
    async shutdown(graceMs) {
      context.shuttingDown = true
      listener.close()
      for (const socket of silent) socket.destroy()
      server.closeIdleConnections()
      lean?.closeIdle()
      const deadline = Date.now() + graceMs
      while (sockets.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        server.closeIdleConnections()
        lean?.closeIdle()
      }
      for (const socket of sockets) socket.destroy()
      for (const socket of context.tunnels) socket.destroy()
    },
  }
}
