/**
 * What every request handler of the proxy shares: the rules, the engine backend, the logger, the
 * open tunnels and the shutdown flag; plus the one-line-per-request log record.
 */
import type net from 'node:net'
import type { Backend } from './backend.js'
import type { GuardSettings } from './guard.js'
import type { ComposePolicy } from './compose-policy/policy.js'
import type { HeldBudget } from './held-budget.js'
import type { Learner } from './learn/learner.js'
import type { MaskedSlots } from './masked-slots.js'
import type { ProxyLogger } from './log.js'
import type { RuleSetConfig } from './rule-sets.js'
import type { Rule } from './rules.js'

/** How long the proxy waits on a client or the engine before it closes the connection. */
export interface ProxyTimeouts {
  /** A request head still incomplete after this is answered 408 (CetusGuard and Tecnativa: 10 s). */
  headersMs: number
  /** A request body (or an upgrade's declared body) with no byte for this long. */
  bodyStallMs: number
  /** An upgrade whose body was sent and that the engine has not answered. */
  upgradeAnswerMs: number
}

/** The timeouts of a proxy server unless a test gives shorter ones. */
export const defaultTimeouts: ProxyTimeouts = {
  headersMs: 10_000,
  bodyStallMs: 30_000,
  upgradeAnswerMs: 30_000,
}

export interface ProxyContext {
  /** The rule sets and how a client is sent to one (rule-choice.ts). */
  ruleSets: RuleSetConfig
  /** The frontend address this server listens on, as configured (for `client frontend` selectors). */
  frontend: string
  timeouts: ProxyTimeouts
  backend: Backend
  logger: ProxyLogger
  /** The host-escape guard (guard.ts). */
  guard: GuardSettings
  /** The compose policy (compose-policy/), when the proxy serves one project's compose files. */
  composePolicy?: ComposePolicy
  /** Engine-side sockets of open upgrade tunnels (closed at the end of the shutdown grace period). */
  tunnels: Set<net.Socket>
  /** The bytes of masked answers held whole (collected, or sent and not yet read by their client). */
  heldAnswers: HeldBudget
  /** How many answers held for masking are asked of the engine at once. */
  maskedSlots: MaskedSlots
  shuttingDown: boolean
  /** Learn mode: forwards what the rules and the guard would refuse, and records it (learn/learner.ts). */
  learner?: Learner
}

/** The outcome of one request, as logged. */
export interface RequestRecord {
  method: string
  path: string
  status: number
  decision: 'allow' | 'deny' | 'invalid' | 'error'
  client: string
  startedAt: number
  rule?: Rule
  reason?: string
  /** The rule set that decided, named on refusals by the guard and the body checks. */
  ruleSet?: string
  /** The body or query field the guard refused the request for. */
  field?: string
}

/**
 * A monotonic clock in milliseconds for request durations. Not `performance.now()`: the first use of
 * the `performance` global loads perf_hooks and its timing modules (RSS: docs/proxy-performance.md).
 */
export function clockMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

/**
 * `address:port` of a client socket on a TCP frontend; `unix` on a unix socket frontend (`frontend` is
 * the configured address). A TCP client that reset its connection before its address was first read
 * has none any more (Node asks the kernel lazily): it is logged as `unknown`, never as `unix`.
 */
export function clientOf(socket: net.Socket, frontend: string): string {
  if (frontend.startsWith('unix:')) return 'unix'
  const address = socket.remoteAddress
  if (address === undefined) return 'unknown'
  return address.includes(':') ? `[${address}]:${socket.remotePort}` : `${address}:${socket.remotePort}`
}

/** The longest path logged whole (long refused paths filled the log: docs/proxy-performance.md). */
const maxLoggedPath = 512

/** Logs one request: allowed at debug, refused and invalid at warning, engine errors at error. */
export function logRequest(context: ProxyContext, record: RequestRecord): void {
  const level = record.decision === 'allow' ? 'debug' : record.decision === 'error' ? 'error' : 'warning'
  if (!context.logger.enabled(level)) return
  context.logger.log(level, 'request', {
    method: record.method,
    path: record.path.length > maxLoggedPath ? `${record.path.slice(0, maxLoggedPath)}...` : record.path,
    status: record.status,
    decision: record.decision,
    client: record.client,
    ms: Math.round((clockMs() - record.startedAt) * 1000) / 1000,
    rule: record.rule ? `${record.rule.source}:${record.rule.line}` : undefined,
    reason: record.reason,
    ruleSet: record.ruleSet,
    field: record.field,
  })
}
