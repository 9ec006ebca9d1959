/**
 * Rule-file injection through learn mode: text a client or the configuration puts into the learned file
 * must mean, read back by the proxy's parser (rules.ts, rule-sets.ts), only what was seen. Paths carry
 * newlines, unicode line and paragraph separators, NEL, `#` after a blank, `[section]`, `client` lines,
 * `%VARIABLE%`, NUL; a PROXY_CLIENTS certificate subject may hold " #", which a rules file reads as the
 * start of a comment.
 */
import { describe, expect, it } from 'vitest'
import { resolveRuleSetConfig, type ProxySettings } from '../../../src/proxy/config.js'
import { defaultGuardSettings } from '../../../src/proxy/guard-settings.js'
import { learnedRulesText } from '../../../src/proxy/learn/learned-file.js'
import { createLearner } from '../../../src/proxy/learn/learner.js'
import type { ProxyLogger } from '../../../src/proxy/log.js'
import { allRuleSets } from '../../../src/proxy/rule-sets.js'
import { decideTarget, isCommentLine } from '../../../src/proxy/rules.js'

const quiet: ProxyLogger = { enabled: () => false, log: () => undefined }

function learn(targets: readonly string[], settings: ProxySettings = { rules: 'GET /nothing' }) {
  const config = resolveRuleSetConfig(settings)
  const learner = createLearner(config, { logger: quiet, guard: defaultGuardSettings })
  const set = allRuleSets(config)[0]!
  const valid: string[] = []
  for (const target of targets) {
    const decision = decideTarget(set.rules, 'GET', target)
    if (!decision.valid) continue
    const learning = learner.begin({ ruleSet: set, client: 'c', method: 'GET', path: decision.canonicalPath })
    if (!learning.overrule()) continue
    learning.forwarded()
    valid.push(target)
  }
  return { text: learnedRulesText(learner.traffic(), new Date(0)), valid }
}

describe('learn mode: hostile paths written into the file', () => {
  const hostile = [
    '/v1.41/containers/a%E2%80%A8GET%20.*/json',
    '/v1.41/containers/a%E2%80%A9GET%20.*/json',
    '/v1.41/containers/a%C2%85GET%20.*/json',
    '/v1.41/containers/a%0AGET%20.*/json',
    '/v1.41/containers/a%0D%0AGET%20.*/json',
    '/v1.41/containers/a%00/json',
    '/v1.41/%5Bdashboard%5D%0Aclient%20source%200.0.0.0%2F0',
    '/v1.41/x%5Bdashboard%5D',
    '/v1.41/containers/a%20%23%20b/json',
    '/v1.41/containers/a%09%23b/json',
    '/v1.41/containers/%25CONTAINER_ID_OR_NAME%25/json',
    '/v1.41/containers/%25%25/json',
    '/v1.41/containers/a%5Cx%7B2E%7D/json',
    '/v1.41/redact-env%20off',
    '/v1.41/preset%20management',
  ]

  it('each valid one becomes one rule line that allows it and nothing a line break or comment would add', () => {
    const { text, valid } = learn(hostile)
    const rules = text.split('\n').filter((line) => !isCommentLine(line) && !line.startsWith('redact-env '))
    // the ones with a control character are refused as targets, the others are one rule each (no merging
    // can apply: the heads differ or the last segment is a variable)
    expect(valid.length).toBeGreaterThan(8)
    const read = resolveRuleSetConfig({ rules: text, noBuiltinRules: true })
    expect(read.everyone!.rules.length).toBe(rules.length)
    expect(read.selectors).toEqual([])
    expect(read.everyone!.redactEnv).toBe(false)
    for (const target of valid)
      expect(decideTarget(read.everyone!.rules, 'GET', target).allowed, target).toBe(true)
    for (const probe of [
      '/v1.41/containers/abc/json',
      '/v1.41/containers/a/json',
      '/v1.41/anything',
      '/v1.41/containers/a/b/json',
    ])
      expect(decideTarget(read.everyone!.rules, 'GET', probe).allowed, probe).toBe(false)
    for (const line of rules) expect(line).toMatch(/^GET [^\s]+$/)
  })
})

describe('learn mode: allowances written for the operator to paste', () => {
  // The file's "flags:" and "environment:" lines are meant to be pasted into a shell command or an
  // environment file. A bind source is the attacker's text: `/tmp/$(touch /tmp/pwned)` written there runs
  // as the operator (often root) when pasted. Only sources a POSIX shell reads literally are written as a
  // setting; the others are listed as needing --guard off.
  it.each([
    '/tmp/$(touch /tmp/pwned)',
    '/tmp/$(touch${IFS}/tmp/pwned)',
    '/tmp/$(id)',
    '/tmp/`id`',
    '/srv/a;reboot',
    '/srv/a|sh',
    '/srv/a&b',
    '/srv/a>b',
    "/srv/a'b",
    '/srv/a"b',
    '/srv/a\\b',
    '/srv/~root',
    '/srv/*',
    '/srv/a?b',
    '/srv/{a,b}',
    '/srv/a!b',
    '/srv/a\u202eb',
    '/srv/a\u0085b',
  ])('a bind of %s is never written as a flag or variable', (source) => {
    const config = resolveRuleSetConfig({ rules: 'POST %API_PREFIX_CONTAINERS%/create' })
    const learner = createLearner(config, { logger: quiet, guard: defaultGuardSettings })
    const set = allRuleSets(config)[0]!
    const learning = learner.begin({
      ruleSet: set,
      client: 'c',
      method: 'POST',
      path: '/v1.41/containers/create',
    })
    const body = Buffer.from(JSON.stringify({ HostConfig: { Binds: [`${source}:/x`] } }))
    // no allowance can carry such a source: the request stays refused, and is listed as needing --guard off
    expect(
      learning.judge('container-create', { query: '', contentType: 'application/json', body }),
    ).not.toBeNull()
    const text = learnedRulesText(learner.traffic(), new Date(0))
    expect(text).toContain('Guard allowances the traffic needed: none.')
    expect(text).toMatch(/REFUSED BY THE GUARD WHATEVER THE ALLOWANCES/)
    expect(text).not.toMatch(/^# {3}(?:flags|environment):/m)
  })
})

describe('learn mode: client lines written into the file', () => {
  // PROXY_CLIENTS takes blanks in a value; a rules file ends the line at " #". Written as it was, the
  // selector CN=dash #x,O=acme would be read back as CN=dash: any organisation's "dash" certificate gets
  // the set. Learn mode refuses to start rather than write a selector that means something else.
  it('refuses a selector whose value a rules file would cut at a comment', () => {
    const settings: ProxySettings = {
      rules: '[dashboard]\nGET /only',
      clients: 'cert CN=dash #x,O=acme dashboard',
    }
    const config = resolveRuleSetConfig(settings)
    expect(() => createLearner(config, { logger: quiet, guard: defaultGuardSettings })).toThrow(
      /cannot write/,
    )
  })

  it('writes selectors a rules file reads back the same', () => {
    const settings: ProxySettings = {
      rules: '[dashboard]\nclient cert CN=dash,O=acme\nGET /only\n[updater]\nclient source fd00::/8\nGET /up',
      clients: 'frontend unix:///run/p.sock?mode=660 updater',
    }
    const config = resolveRuleSetConfig(settings)
    const learner = createLearner(config, { logger: quiet, guard: defaultGuardSettings })
    const read = resolveRuleSetConfig({ rules: learnedRulesText(learner.traffic(), new Date(0)) })
    const shape = (c: typeof config) => c.selectors.map((s) => [s.matcher.kind, s.matcher.value, s.ruleSet])
    expect(shape(read)).toEqual(shape(config))
  })
})
