/**
 * `vault proxy check`: one request decided against a rule set exactly as the proxy decides it.
 */
import { resolveRules, type ProxySettings } from './config.js'
import { describeRule, decideTarget } from './rules.js'

export interface ProxyCheckResult {
  decision: 'allow' | 'deny'
  method: string
  path: string
  canonicalPath?: string
  rule?: string
  reason?: string
}

/** Decides METHOD and raw PATH against the rules the settings select (built-ins included unless off). */
export function checkRequest(settings: ProxySettings, method: string, rawPath: string): ProxyCheckResult {
  const decision = decideTarget(resolveRules(settings), method, rawPath)
  if (!decision.valid) return { decision: 'deny', method, path: rawPath, reason: decision.reason }
  return {
    decision: decision.allowed ? 'allow' : 'deny',
    method,
    path: rawPath,
    canonicalPath: decision.canonicalPath,
    rule: decision.rule ? describeRule(decision.rule) : undefined,
    reason: decision.allowed ? undefined : 'no rule allows it',
  }
}
