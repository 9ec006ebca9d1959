/**
 * `vault proxy check`: one request decided against the rule sets exactly as the proxy decides it, for
 * a client described by `--client source=ADDR`, `cert=SUBJECT`, `frontend=ADDR` when rule sets are
 * chosen per client.
 */
import { UsageError } from '../errors.js'
import {
  describeIdentity,
  notASubject,
  parseSubjectText,
  selectRuleSet,
  type ClientIdentity,
} from './client-rules.js'
import { defaultFrontendAddr, resolveRuleSetConfig, type ProxySettings } from './config.js'
import { environmentRefusal } from './env-refusal.js'
import { needsEnvMasking, needsProcessListMasking } from './inspect-redact.js'
import { describeRule, decideTarget } from './rules.js'
import { bodyRefusal } from './guard-endpoints.js'
import { judgeBody, planGuard } from './guard.js'
import { defaultGuardSettings, resolveGuardSettings } from './guard-settings.js'
import type { ComposePolicy } from './compose-policy/policy.js'
import { planComposeRequest, type PolicyPlan } from './compose-policy/routes.js'

export interface ProxyCheckResult {
  decision: 'allow' | 'deny'
  method: string
  path: string
  canonicalPath?: string
  rule?: string
  reason?: string
  /** The rule set that decided (a section or preset name; `*` when every client gets the same). */
  ruleSet?: string
  /** The body or query field the host-escape guard refused the request for. */
  field?: string
  /**
   * Whether container environment values in the answer to this request would be masked (an answer that
   * carries the environment, or a container's process list).
   */
  envMasked: boolean
}

/**
 * A subject as node:tls gives one (a repeated attribute as a list), from written attributes; names that
 * differ only in case are one attribute, spelled as first written.
 */
function subjectOf(attributes: readonly [string, string][]): Record<string, string | string[]> {
  const subject: Record<string, string | string[]> = {}
  for (const [written, attribute] of attributes) {
    const name = Object.keys(subject).find((key) => key.toLowerCase() === written.toLowerCase()) ?? written
    const previous = subject[name]
    subject[name] = previous === undefined ? attribute : [previous, attribute].flat()
  }
  return subject
}

/** Builds a client identity from `kind=value` options; the frontend defaults to the first configured. */
export function clientIdentity(options: readonly string[], settings: ProxySettings): ClientIdentity {
  const identity: ClientIdentity = { frontend: settings.frontendAddrs?.[0] ?? defaultFrontendAddr }
  for (const option of options) {
    const equals = option.indexOf('=')
    const kind = option.slice(0, equals)
    const value = option.slice(equals + 1)
    if (equals <= 0 || value === '') throw new UsageError(`--client "${option}" is not KIND=VALUE`)
    if (kind === 'source') identity.address = value
    else if (kind === 'frontend') identity.frontend = value
    else if (kind === 'cert') {
      const attributes = parseSubjectText(value)
      if (!attributes) throw new UsageError(`--client "${option}": ${notASubject(value)}`)
      identity.certSubject = subjectOf(attributes)
    } else throw new UsageError(`--client "${option}": the kind is source, cert or frontend`)
  }
  return identity
}

/** A request body for `vault proxy check --body`. */
export interface CheckedBody {
  bytes: Buffer
  contentType?: string
}

/** The compose policy's verdict where the body alone decides; undefined where it passes or asks the engine. */
function policyRefusal(
  plan: PolicyPlan,
  body: CheckedBody | undefined,
): { field: string; reason: string } | undefined {
  const verdict =
    plan.action === 'refuse'
      ? plan.refusal
      : plan.action === 'decide' && plan.judge
        ? plan.judge({ body: body?.bytes ?? Buffer.alloc(0), contentType: body?.contentType })
        : {}
  return 'reason' in verdict
    ? { field: verdict.field, reason: `compose policy: ${verdict.reason}` }
    : undefined
}

/** Why the body checks, the compose policy or the host-escape guard refuse an allowed request, or undefined. */
function guardRefusal(
  settings: ProxySettings,
  request: { method: string; path: string; query: string },
  body: CheckedBody | undefined,
  policy: ComposePolicy | undefined,
): { field: string; reason: string } | undefined {
  const hasBody = body !== undefined && body.bytes.length > 0
  const refused = hasBody ? bodyRefusal(request.method, request.path) : undefined
  if (refused !== undefined) return { field: 'body', reason: refused }
  const backend = settings.backendAddr?.startsWith('unix://') ? settings.backendAddr.slice(7) : undefined
  const guard = resolveGuardSettings(settings, backend)
  const policyPlan = policy && planComposeRequest(policy, guard, request)
  if (policyPlan && policyPlan.action !== 'pass') return policyRefusal(policyPlan, body)
  const plan = planGuard(guard, { ...request, hasBody })
  const refusal =
    plan.action === 'refuse'
      ? plan.refusal
      : plan.action === 'read-body'
        ? judgeBody(
            plan.kind,
            { query: request.query, contentType: body!.contentType, body: body!.bytes },
            guard,
          )
        : null
  return refusal ? { field: refusal.field, reason: `host-escape guard: ${refusal.reason}` } : undefined
}

/** What the proxy under a compose policy will still ask the engine before it forwards the request. */
function engineDecided(
  policy: ComposePolicy | undefined,
  method: string,
  decision: { canonicalPath: string; query: string },
): string | undefined {
  if (!policy) return undefined
  const plan = planComposeRequest(policy, defaultGuardSettings, {
    method,
    path: decision.canonicalPath,
    query: decision.query,
  })
  return plan.action === 'decide' && !plan.judge
    ? `compose policy: only for project "${policy.project}"'s own containers, networks and volumes (the proxy reads their labels from the engine)`
    : undefined
}

/**
 * Decides METHOD and raw PATH (with a body, when given) against the rule set the settings choose for
 * `client` (`kind=value`s), the host-escape guard included.
 */
export function checkRequest(
  settings: ProxySettings,
  method: string,
  rawPath: string,
  options: { client?: readonly string[]; body?: CheckedBody; composePolicy?: ComposePolicy } = {},
): ProxyCheckResult {
  const { client = [], body, composePolicy } = options
  const config = resolveRuleSetConfig(settings)
  let ruleSet = config.everyone
  if (!ruleSet) {
    if (client.length === 0) {
      throw new UsageError('rule sets are chosen per client: say who asks', {
        hint: 'add --client source=127.0.0.2, --client cert=CN=dashboard or --client frontend=unix:///run/p.sock',
      })
    }
    const identity = clientIdentity(client, settings)
    const selector = selectRuleSet(config.selectors, identity)
    if (!selector) {
      const reason = `no rule set for this client (${describeIdentity(identity)})`
      return { decision: 'deny', method, path: rawPath, reason, envMasked: false }
    }
    ruleSet = config.sets.get(selector.ruleSet)!
  }
  const decision = decideTarget(ruleSet.rules, method, rawPath)
  const base = { method, path: rawPath, ruleSet: ruleSet.name }
  if (!decision.valid) return { ...base, decision: 'deny', reason: decision.reason, envMasked: false }
  const guarded = decision.allowed
    ? guardRefusal(
        settings,
        { method, path: decision.canonicalPath, query: decision.query },
        body,
        composePolicy,
      )
    : undefined
  if (guarded !== undefined) {
    return {
      ...base,
      decision: 'deny',
      canonicalPath: decision.canonicalPath,
      rule: decision.rule ? describeRule(decision.rule) : undefined,
      reason: guarded.reason,
      field: guarded.field,
      envMasked: false,
    }
  }
  const unmaskable = decision.allowed
    ? environmentRefusal(ruleSet, method, decision.canonicalPath, decision.query)
    : undefined
  if (unmaskable !== undefined) {
    const rule = decision.rule ? describeRule(decision.rule) : undefined
    return {
      ...base,
      decision: 'deny',
      canonicalPath: decision.canonicalPath,
      rule,
      reason: unmaskable,
      envMasked: false,
    }
  }
  return {
    ...base,
    decision: decision.allowed ? 'allow' : 'deny',
    canonicalPath: decision.canonicalPath,
    rule: decision.rule ? describeRule(decision.rule) : undefined,
    reason: decision.allowed ? engineDecided(composePolicy, method, decision) : 'no rule allows it',
    envMasked:
      decision.allowed &&
      ruleSet.redactEnv &&
      (needsEnvMasking(method, decision.canonicalPath, 200) ||
        needsProcessListMasking(method, decision.canonicalPath, 200)),
  }
}
