/**
 * Attacks on learn mode's record (`--learn FILE`) by a hostile client (a compromised dashboard): what it
 * sends while the proxy learns must not make the learned file, read back by the proxy's own parser,
 * allow more than the requests it sent. Each case learns what the attacker sends, reads the file back
 * as an enforcing proxy would (resolveRuleSetConfig, no built-ins), and asks the enforcing decision
 * about endpoints the attacker never reached.
 */
import { describe, expect, it } from 'vitest'
import { resolveRuleSetConfig, type ProxySettings } from '../../../src/proxy/config.js'
import { defaultGuardSettings } from '../../../src/proxy/guard-settings.js'
import { learnedRulesText } from '../../../src/proxy/learn/learned-file.js'
import { createLearner } from '../../../src/proxy/learn/learner.js'
import type { ProxyLogger } from '../../../src/proxy/log.js'
import { allRuleSets, type RuleSetConfig } from '../../../src/proxy/rule-sets.js'
import { decideTarget } from '../../../src/proxy/rules.js'

const quiet: ProxyLogger = { enabled: () => false, log: () => undefined }

/** Learns raw request targets as the proxy does (canonicalised first), returns the file's text. */
function learnTargets(
  targets: readonly [string, string][],
  settings: ProxySettings = { rules: 'GET /nothing' },
) {
  const config = resolveRuleSetConfig(settings)
  const learner = createLearner(config, { logger: quiet, guard: defaultGuardSettings })
  const set = allRuleSets(config)[0]!
  for (const [method, target] of targets) {
    const decision = decideTarget(set.rules, method, target)
    if (!decision.valid) continue
    const learning = learner.begin({
      ruleSet: set,
      client: 'dashboard',
      method,
      path: decision.canonicalPath,
      rule: decision.rule,
    })
    if (!decision.allowed && !learning.overrule()) continue
    learning.forwarded()
  }
  return learnedRulesText(learner.traffic(), new Date(0))
}

/** The enforcing proxy's verdict on a raw target under the learned file (no built-ins). */
function enforcing(text: string): (method: string, target: string) => boolean {
  const { rules } = resolveRuleSetConfig({ rules: text, noBuiltinRules: true }).everyone!
  return (method, target) => decideTarget(rules, method, target).allowed
}

describe('learn mode: a hostile path cannot widen the learned rules', () => {
  // The engine routes /v1.41/v1.41/containers/create nowhere (404); the attacker sends it while learning
  // so that the file allows the versioned create it never made. A rule `%API_PREFIX%/v1\.41/...` lets the
  // optional prefix match nothing and the literal `/v1.41` be the version.
  it.each([
    ['POST', '/v1.41/v1.41/containers/create', ['/v1.41/containers/create']],
    ['POST', '/v1.41/v1.24/containers/abc/start', ['/v1.24/containers/abc/start']],
    ['GET', '/v1.41/v1.41/containers/abc/archive', ['/v1.41/containers/abc/archive']],
    ['POST', '/v1.41/v1.41/images/load', ['/v1.41/images/load']],
    ['POST', '/v1/v1.41/containers/create', ['/v1.41/containers/create']],
  ])('%s %s (a second version prefix) allows nothing but itself', (method, target, never) => {
    const allowed = enforcing(learnTargets([[method, target]]))
    expect(allowed(method, target)).toBe(true)
    for (const other of never) expect(allowed(method, other), `${method} ${other}`).toBe(false)
  })

  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']
  it.each([
    // encoded slashes and dots are decoded before the record: the rule is about the path the engine gets
    ['GET', '/v1.41/containers/abc%2Fjson', ['/v1.41/containers/abc/export', '/v1.41/containers/create']],
    ['GET', '/v1.41/containers/abc/%2e%2e/create', ['/v1.41/containers/json', '/v1.41/containers/x/json']],
    ['GET', '/v1.41/containers/ABC/JSON', ['/v1.41/containers/abc/json', '/v1.41/containers/ABC/export']],
    ['GET', '/v1.41/containers/json/', ['/v1.41/containers/json', '/v1.41/containers/x/json']],
    // names that look like other kinds of ids or like collection endpoints
    ['DELETE', '/v1.41/containers/create', ['/v1.41/containers/abc/json', '/v1.41/containers/x/start']],
    ['GET', '/v1.41/networks/create', ['/v1.41/networks/abc/connect', '/v1.41/networks/prune/x']],
    // (DELETE /images/NAME takes slashes in NAME: any DELETE under /images is an image's removal)
    ['DELETE', '/v1.41/images/load', ['/v1.41/images/abc/push', '/v1.41/images/abc/tag'], 'other methods'],
    ['POST', '/v1.41/images/load/tag', ['/v1.41/images/load', '/v1.41/images/abc/push']],
    ['GET', '/v1.41/exec/abc/json', ['/v1.41/exec/abc/start', '/v1.41/containers/abc/exec']],
    // queries are not part of a rule: one seen with a query allows the bare path and no other endpoint
    [
      'GET',
      '/v1.41/containers/json?all=1&filters=%7B%7D',
      ['/v1.41/containers/abc/json', '/v1.41/containers/create'],
    ],
  ])('%s %s allows no other endpoint', (method, target, never, only?: string) => {
    const allowed = enforcing(learnTargets([[method, target]]))
    expect(allowed(method, target)).toBe(true)
    for (const other of never)
      for (const otherMethod of methods.filter((m) => only === undefined || m !== method))
        expect(allowed(otherMethod, other), `${otherMethod} ${other}`).toBe(false)
    // and never another method on the path seen
    for (const otherMethod of methods.filter((m) => m !== method))
      expect(allowed(otherMethod, target), `${otherMethod} ${target}`).toBe(false)
  })

  it('a GET seen never allows POST, HEAD or a lower-case method on the same path', () => {
    const allowed = enforcing(learnTargets([['GET', '/v1.41/containers/abc/json']]))
    for (const method of ['POST', 'HEAD', 'PUT', 'DELETE', 'get', 'Get'])
      expect(allowed(method, '/v1.41/containers/abc/json'), method).toBe(false)
  })
})

describe('learn mode: the rule sets of the learned file send each client where it went while learning', () => {
  /** The rule set each client address gets under `config`. */
  const chosen = (config: RuleSetConfig, address: string) =>
    config.selectors.find((selector) => selector.matcher.matches({ address, frontend: 'tcp://:2375' }))
      ?.ruleSet

  // [a] for 10.0.0.1, [b] for 10.0.0.0/8, and PROXY_CLIENTS sends 10.0.0.7 to [a] after them: 10.0.0.7
  // gets [b] (the earlier selector wins). Written as one section each, [a] with both client lines first,
  // the file would send 10.0.0.7 to [a]: the updater's rules for the dashboard.
  it('keeps the order in which selectors of different sets were given', () => {
    const settings: ProxySettings = {
      rules: '[a]\nclient source 10.0.0.1\nPOST /a-only\n[b]\nclient source 10.0.0.0/8\nGET /b-only',
      clients: 'source 10.0.0.7 a',
    }
    const learning = resolveRuleSetConfig(settings)
    const text = learnTargets([], settings)
    const learned = resolveRuleSetConfig({ rules: text })
    for (const address of ['10.0.0.1', '10.0.0.7', '10.1.2.3', '192.168.0.1']) {
      const before = chosen(learning, address)
      const after = chosen(learned, address)
      expect(after === undefined ? undefined : after.replace(/-learned$|-\d+$/, ''), address).toBe(before)
    }
  })
})
