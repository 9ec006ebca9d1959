/**
 * Learn mode, the pure and stateful parts: the rules it writes are read back by the proxy's own parser
 * and decide as the traffic seen needs (allowed), and no wider (other methods, collection endpoints,
 * variants of a hostile name refused); hostile paths never break a line or mean more than themselves;
 * the record is capped; guard refusals become the exact allowances; per-client rule sets get one
 * section each; the file is written with mode 600 and the warning repeats at the injected interval.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveRuleSetConfig, type ProxySettings } from '../../../../src/proxy/config.js'
import { defaultGuardSettings } from '../../../../src/proxy/guard-settings.js'
import { judgeBody } from '../../../../src/proxy/guard.js'
import { resolveLearnSettings, startLearnMode } from '../../../../src/proxy/learn/learn-mode.js'
import { settingsFromArgs } from '../../../../src/proxy/settings.js'
import { learnedRulesText } from '../../../../src/proxy/learn/learned-file.js'
import { learnedPattern } from '../../../../src/proxy/learn/learned-pattern.js'
import { createLearner } from '../../../../src/proxy/learn/learner.js'
import type { LogFields, ProxyLogger } from '../../../../src/proxy/log.js'
import { allRuleSets, type RuleSetConfig } from '../../../../src/proxy/rule-sets.js'
import { decide, isCommentLine } from '../../../../src/proxy/rules.js'

type Seen = [method: string, path: string]

function memoryLogger(): ProxyLogger & { lines: { message: string; fields: LogFields }[] } {
  const lines: { message: string; fields: LogFields }[] = []
  return {
    lines,
    enabled: () => true,
    log: (_level, message, fields = {}) => lines.push({ message, fields }),
  }
}

/** Learns `seen` under `settings` (nothing allowed but the built-ins by default) and returns the file. */
function learn(seen: readonly Seen[], settings: ProxySettings = { rules: 'GET /nothing-else' }) {
  const config = resolveRuleSetConfig(settings)
  const learner = createLearner(config, { logger: memoryLogger(), guard: defaultGuardSettings })
  const set = allRuleSets(config)[0]!
  for (const [method, path] of seen) {
    const learning = learner.begin({
      ruleSet: set,
      client: 'test',
      method,
      path,
      rule: decide(set.rules, method, path).rule,
    })
    if (!decide(set.rules, method, path).allowed) expect(learning.overrule()).toBe(true)
    learning.forwarded()
  }
  return learnedRulesText(learner.traffic(), new Date(0))
}

/** The learned file as the proxy reads it: the rule set for everyone, without the built-ins. */
function learnedSet(text: string) {
  const config = resolveRuleSetConfig({ rules: text, noBuiltinRules: true })
  return config.everyone!
}

const ruleLines = (text: string) =>
  text.split('\n').filter((line) => !isCommentLine(line) && !/^redact-env /.test(line))

describe('learned rules', () => {
  it("writes one generalised rule for an inspect, in the presets' terms, and nothing wider", () => {
    const text = learn([['GET', '/v1.41/containers/abc123/json']])
    expect(ruleLines(text)).toEqual(['GET %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/json'])
    const { rules } = learnedSet(text)
    expect(decide(rules, 'GET', '/v1.41/containers/abc123/json').allowed).toBe(true)
    expect(decide(rules, 'GET', '/v1.45/containers/web_1/json').allowed).toBe(true)
    expect(decide(rules, 'GET', '/containers/web_1/json').allowed).toBe(true)
    for (const [method, path] of [
      ['POST', '/v1.41/containers/abc123/json'],
      ['HEAD', '/v1.41/containers/abc123/json'],
      ['POST', '/v1.41/containers/create'],
      ['GET', '/v1.41/containers/create'],
      ['GET', '/v1.41/containers/abc123/export'],
      ['GET', '/v1.41/containers/json'],
      ['GET', '/v1.41/images/abc123/json'],
    ])
      expect(decide(rules, method!, path!).allowed, `${method} ${path}`).toBe(false)
    expect(text).not.toMatch(/\.\*/)
  })

  it('merges the methods of one pattern and the last segments of one prefix', () => {
    const text = learn([
      ['GET', '/v1.41/containers/json'],
      ['GET', '/v1.41/containers/web/json'],
      ['GET', '/v1.41/containers/db/logs'],
      ['POST', '/v1.41/containers/web/restart'],
      ['POST', '/v1.41/containers/web/stop'],
      ['GET', '/v1.41/networks/abc'],
      ['DELETE', '/v1.41/networks/abc'],
    ])
    expect(ruleLines(text)).toEqual([
      'GET %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/(?:json|logs)',
      'POST %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/(?:restart|stop)',
      'GET %API_PREFIX_CONTAINERS%/json',
      'GET,DELETE %API_PREFIX_NETWORKS%/%NETWORK_ID_OR_NAME%',
    ])
    expect(text).toContain(
      '# 2 requests, 2 would have been refused\nGET %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/(?:json|logs)',
    )
    const { rules } = learnedSet(text)
    expect(decide(rules, 'POST', '/v1.41/containers/web/kill').allowed).toBe(false)
    expect(decide(rules, 'POST', '/v1.41/containers/web/json').allowed).toBe(false)
  })

  it('never reads a collection endpoint (or one with a trailing slash) as a name: prune does not allow create', () => {
    const text = learn([
      ['POST', '/v1.41/containers/prune'],
      ['POST', '/v1.41/images/prune/'],
      ['GET', '/v1.41/images/json'],
    ])
    const { rules } = learnedSet(text)
    expect(decide(rules, 'POST', '/v1.41/containers/prune').allowed).toBe(true)
    expect(decide(rules, 'POST', '/v1.41/images/prune/').allowed).toBe(true)
    expect(decide(rules, 'POST', '/v1.41/containers/create').allowed).toBe(false)
    expect(decide(rules, 'POST', '/v1.41/images/create/').allowed).toBe(false)
    expect(decide(rules, 'GET', '/v1.41/images/get').allowed).toBe(false)
  })

  it('reads image names with slashes, tags and digests as one name', () => {
    const text = learn([
      ['GET', '/v1.41/images/registry.example:5000/library/busybox:1.36/json'],
      ['DELETE', '/v1.41/images/library/busybox:1.36'],
    ])
    expect(ruleLines(text)).toEqual([
      'DELETE %API_PREFIX_IMAGES%/%IMAGE_ID_OR_REFERENCE%',
      'GET %API_PREFIX_IMAGES%/%IMAGE_ID_OR_REFERENCE%/json',
    ])
    expect(decide(learnedSet(text).rules, 'GET', '/images/busybox/history').allowed).toBe(false)
  })

  it.each([
    ['regex metacharacters', '/v1.41/containers/a.b|c(d)*+?[x]{2}^$\\/json', '/v1.41/containers/aXb/json'],
    ['an alternation that would escape the anchors', '/v1.41/x|/.*', '/v1.41/x'],
    ['a catch-all name', '/v1.41/foo/.*', '/v1.41/foo/anything'],
    ['a comment after a blank', '/v1.41/containers/a #b/json', '/v1.41/containers/a/json'],
    ['a variable name', '/v1.41/%CONTAINER_ID%/json', '/v1.41/abc/json'],
    ['a line break', '/v1.41/containers/a\nGET .*/json', '/v1.41/containers/a/json'],
    ['a carriage return and tab', '/v1.41/a\r\tb', '/v1.41/a'],
    ['non-ASCII text', '/v1.41/conteneurs/été/🐳', '/v1.41/conteneurs/ete/x'],
  ])('keeps a path with %s to exactly one literal rule', (_what, path, variant) => {
    const text = learn([['GET', path]])
    expect(ruleLines(text)).toHaveLength(1)
    const { rules } = learnedSet(text)
    expect(rules).toHaveLength(1)
    expect(decide(rules, 'GET', path).allowed).toBe(true)
    expect(decide(rules, 'GET', variant).allowed).toBe(false)
    expect(decide(rules, 'GET', '/v1.41/containers/create').allowed).toBe(false)
    expect(decide(rules, 'POST', path).allowed).toBe(false)
  })

  it('does not record a pattern longer than 1,024 characters, and refuses it in learn mode', () => {
    const long = `/v1.41/containers/${'a+'.repeat(600)}/json`
    expect(learnedPattern('GET', long)).toBeUndefined()
    const logger = memoryLogger()
    const config = resolveRuleSetConfig({ rules: 'GET /x' })
    const learner = createLearner(config, { logger, guard: defaultGuardSettings })
    const learning = learner.begin({ ruleSet: config.everyone!, client: 'c', method: 'GET', path: long })
    expect(learning.overrule()).toBe(false)
    expect(logger.lines.at(-1)).toMatchObject({ message: 'learn mode refuses' })
    expect(learner.traffic().refusedUnlearnable).toBe(1)
  })
})

describe('the learner', () => {
  const everyone = (settings: ProxySettings): RuleSetConfig => resolveRuleSetConfig(settings)

  it('caps the kinds of request per rule set: a new kind past the cap is refused as the rules refuse it', () => {
    const config = everyone({ rules: 'GET %API_PREFIX_CONTAINERS%/json' })
    const logger = memoryLogger()
    const learner = createLearner(config, {
      logger,
      guard: defaultGuardSettings,
      limits: { requestKinds: 3, needs: 4 },
    })
    const set = config.everyone!
    const go = (method: string, path: string, allowed = false) => {
      const learning = learner.begin({ ruleSet: set, client: 'c', method, path })
      const goesOn = allowed || learning.overrule()
      if (goesOn) learning.forwarded()
      return goesOn
    }
    for (let i = 0; i < 3; i++) expect(go('GET', `/v1.41/thing${i}`)).toBe(true)
    expect(go('GET', '/v1.41/thing3')).toBe(false)
    expect(go('GET', '/v1.41/thing0')).toBe(true)
    expect(go('GET', '/v1.41/containers/json', true)).toBe(true)
    expect(learner.traffic()).toMatchObject({ requests: 4, refusedUnlearnable: 1, notRecorded: 1 })
    expect([...learner.traffic().sets[0]!.requests.keys()]).toHaveLength(3)
    expect(logger.lines.filter((line) => line.message === 'would refuse')).toHaveLength(4)
    expect(logger.lines.find((line) => line.message === 'would refuse')?.fields).toMatchObject({
      client: 'c',
      ruleSet: '*',
      reason: 'no rule allows it',
    })
  })

  it('records at most 1,000 kinds of request of a client sending 5,000 distinct paths', () => {
    const config = everyone({ rules: 'GET /x' })
    const learner = createLearner(config, { logger: memoryLogger(), guard: defaultGuardSettings })
    let refused = 0
    for (let i = 0; i < 5000; i++) {
      const learning = learner.begin({
        ruleSet: config.everyone!,
        client: 'c',
        method: 'GET',
        path: `/v1.41/p${i}+`,
      })
      if (learning.overrule()) learning.forwarded()
      else refused++
    }
    expect(learner.traffic().sets[0]!.requests.size).toBe(1000)
    expect(refused).toBe(4000)
  })

  it('turns guard refusals into the exact allowances, and keeps an undecodable body refused', () => {
    const config = everyone({ rules: 'POST %API_PREFIX_CONTAINERS%/create' })
    const learner = createLearner(config, { logger: memoryLogger(), guard: defaultGuardSettings })
    const set = config.everyone!
    const create = (body: unknown, contentType = 'application/json') => {
      const learning = learner.begin({
        ruleSet: set,
        client: 'c',
        method: 'POST',
        path: '/v1.41/containers/create',
      })
      const request = {
        query: '',
        contentType,
        body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
      }
      const refusal = learning.judge('container-create', request)
      if (!refusal) learning.forwarded()
      return refusal
    }
    const needy = { Image: 'x', HostConfig: { CapAdd: ['net_admin'], Binds: ['/srv/data/:/data', 'vol:/v'] } }
    expect(
      judgeBody(
        'container-create',
        { query: '', contentType: 'application/json', body: Buffer.from(JSON.stringify(needy)) },
        defaultGuardSettings,
      ),
    ).not.toBeNull()
    expect(create(needy)).toBeNull()
    // no allowance lifts it: refused while learning too, and listed as needing --guard off
    expect(create({ Image: 'x', HostConfig: { Privileged: true } })).not.toBeNull()
    expect(create('{"Image":"x","Image":"y"}')?.undecodable).toBe(true)
    expect(create({ Image: 'x' }, 'text/plain')?.undecodable).toBe(true)
    const text = learnedRulesText(learner.traffic(), new Date(0))
    expect(text).toContain('#   flags: --allow-cap NET_ADMIN --allow-bind-from /srv/data\n')
    expect(text).toContain('#   environment: PROXY_ALLOW_CAP=NET_ADMIN PROXY_ALLOW_BIND_FROM=/srv/data\n')
    expect(text).toMatch(/only --guard off[^\n]*\n[^\n]*\n# {3}HostConfig\.Privileged is refused: 1 request/)
    expect(learner.traffic()).toMatchObject({ requests: 1, wouldRefuse: 1, refusedUnlearnable: 1 })
  })

  it('writes a bind source a flag cannot carry, or a capability Linux lacks, as needing --guard off', () => {
    const config = everyone({ rules: 'POST %API_PREFIX_CONTAINERS%/create' })
    const learner = createLearner(config, { logger: memoryLogger(), guard: defaultGuardSettings })
    const learning = learner.begin({
      ruleSet: config.everyone!,
      client: 'c',
      method: 'POST',
      path: '/containers/create',
    })
    const body = { Image: 'x', HostConfig: { Binds: ['/srv/a,b\n#x:/d'] } }
    expect(
      learning.judge('container-create', {
        query: '',
        contentType: 'application/json',
        body: Buffer.from(JSON.stringify(body)),
      }),
    ).not.toBeNull()
    const text = learnedRulesText(learner.traffic(), new Date(0))
    expect(text).toContain('Guard allowances the traffic needed: none.')
    expect(text).toContain('#   HostConfig.Binds[0] "/srv/a,b?#x" is outside')
    expect(() => resolveRuleSetConfig({ rules: text })).not.toThrow()
  })

  it('writes one section per client rule set, with its client lines, that the proxy reads back', () => {
    const settings: ProxySettings = {
      rules: '[dashboard]\nclient source 127.0.0.2\npreset monitoring\n',
      clients: 'source 127.0.0.3 management',
    }
    const config = resolveRuleSetConfig(settings)
    const learner = createLearner(config, { logger: memoryLogger(), guard: defaultGuardSettings })
    for (const [set, method, path] of [
      ['dashboard', 'GET', '/v1.41/containers/json'],
      ['management', 'POST', '/v1.41/containers/web/restart'],
    ] as const) {
      const learning = learner.begin({ ruleSet: config.sets.get(set)!, client: 'c', method, path })
      learning.forwarded()
    }
    const text = learnedRulesText(learner.traffic(), new Date(0))
    expect(text).toContain('[dashboard]\nclient source 127.0.0.2\nredact-env on\n')
    expect(text).toContain('[management-learned]\nclient source 127.0.0.3\nredact-env off\n')
    const learned = resolveRuleSetConfig({ rules: text, noBuiltinRules: true })
    expect(learned.sets.get('dashboard')!.rules.map((rule) => rule.pattern)).toEqual([
      '%API_PREFIX_CONTAINERS%/json',
    ])
    expect(
      learned.sets.get('management-learned')!.rules.map((rule) => `${rule.methods} ${rule.pattern}`),
    ).toEqual(['POST %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/restart'])
  })

  it('keeps the default rule list out when nothing but built-ins was seen', () => {
    const text = learn([])
    expect(
      decide(resolveRuleSetConfig({ rules: text }).everyone!.rules, 'GET', '/v1.41/containers/json').allowed,
    ).toBe(false)
  })
})

describe('learn mode', () => {
  it('reads --learn and PROXY_LEARN, and refuses a file it could not write or a bad interval', () => {
    const dir = mkdtempSync(join(tmpdir(), 'learn-'))
    const settings = settingsFromArgs(['--learn', join(dir, 'a.rules')], { PROXY_LEARN_WARN_EVERY: '1.5' })
    expect(resolveLearnSettings(settings)).toEqual({ file: join(dir, 'a.rules'), warnEveryMs: 1500 })
    expect(resolveLearnSettings({ learn: join(dir, 'x'), learnWarnEvery: '1' })).toMatchObject({
      warnEveryMs: 1000,
    })
    expect(resolveLearnSettings(settingsFromArgs([], { PROXY_LEARN: join(dir, 'b.rules') }))).toEqual({
      file: join(dir, 'b.rules'),
      warnEveryMs: 60_000,
    })
    expect(resolveLearnSettings({})).toBeUndefined()
    expect(() => resolveLearnSettings({ learn: dir })).toThrow(/is a directory/)
    expect(() => resolveLearnSettings({ learn: join(dir, 'no', 'x.rules') })).toThrow(
      /directory does not exist/,
    )
    // an interval that would spin (each one warns and rewrites the file) is refused, naming the variable
    for (const every of ['0', '0.001', '0.5', '0.999'])
      expect(() => resolveLearnSettings({ learn: join(dir, 'x'), learnWarnEvery: every }), every).toThrow(
        new RegExp(`^PROXY_LEARN_WARN_EVERY "${every}" is below 1 second`),
      )
    expect(() => resolveLearnSettings({ learn: join(dir, 'x'), learnWarnEvery: '-1' })).toThrow(
      /PROXY_LEARN_WARN_EVERY "-1" is not a number of seconds/,
    )
    expect(() => resolveLearnSettings({ learnWarnEvery: '5' })).toThrow(/needs PROXY_LEARN/)
    expect(() => resolveLearnSettings({ learn: join(dir, 'r'), rulesFile: join(dir, '.', 'r') })).toThrow(
      /is the rules file/,
    )
  })

  it('writes the file with mode 600, warns at start and at every interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'learn-'))
    const file = join(dir, 'learned.rules')
    const loud = memoryLogger()
    const config = resolveRuleSetConfig({ rules: 'GET /x' })
    const mode = startLearnMode(
      { file, warnEveryMs: 20 },
      { ruleSets: config, guard: defaultGuardSettings },
      { logger: memoryLogger(), loud },
    )
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(loud.lines[0]?.message).toMatch(
      /^LEARN MODE: requests the rules or the host-escape guard refuse are FORWARDED/,
    )
    const learning = mode.learner.begin({
      ruleSet: config.everyone!,
      client: 'c',
      method: 'GET',
      path: '/v1.41/info/x',
    })
    expect(learning.overrule()).toBe(true)
    learning.forwarded()
    for (
      let i = 0;
      i < 100 && loud.lines.filter((line) => line.message.startsWith('LEARN MODE')).length < 3;
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 10))
    expect(loud.lines.filter((line) => line.message.startsWith('LEARN MODE')).length).toBeGreaterThanOrEqual(
      3,
    )
    mode.stop()
    const written = readFileSync(file, 'utf8')
    expect(ruleLines(written)).toEqual(['GET %API_PREFIX_INFO%/x'])
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(
      loud.lines.some(
        (line) =>
          line.message === 'learned' &&
          line.fields.rule === '[*] GET %API_PREFIX_INFO%/x: 1 request, 1 would have been refused',
      ),
    ).toBe(true)
  })
})
