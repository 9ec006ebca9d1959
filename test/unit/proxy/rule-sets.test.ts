/** Rule sets: vault's additions to the rule-file syntax, resolved into named sets and selectors. */
import { describe, expect, it } from 'vitest'
import { parseClientsSetting, selectRuleSet } from '../../../src/proxy/client-rules.js'
import { resolveRuleSets, type RuleSetInput } from '../../../src/proxy/rule-sets.js'
import { decide } from '../../../src/proxy/rules.js'

const file = (text: string): RuleSetInput => ({ texts: [{ text, source: 'rules file x.rules' }] })

const twoClients = `! CetusGuard comment
[dashboard]
client source 127.0.0.2
client cert CN=dashboard
preset monitoring

[updater]
client frontend unix:///run/updater.sock
preset management
GET %API_PREFIX_IMAGES%/json
`

describe('resolveRuleSets', () => {
  it('gives every client the same set when there are no selectors (CetusGuard files)', () => {
    const config = resolveRuleSets(file('GET %API_PREFIX_CONTAINERS%/json'))
    expect(config.selectors).toEqual([])
    expect(config.everyone?.rules.map((rule) => rule.source)).toEqual([
      ...Array(6).fill('built-in'),
      'rules file x.rules',
    ])
    expect(config.everyone?.redactEnv).toBe(false)
  })

  it('uses the default list when nothing is configured', () => {
    const config = resolveRuleSets({ texts: [] })
    expect(config.everyone?.rules.at(-1)?.source).toBe('default rules')
  })

  it('builds one set per section and chooses it by client', () => {
    const config = resolveRuleSets(file(twoClients))
    expect([...config.sets.keys()]).toEqual(['dashboard', 'updater'])
    expect(config.everyone).toBeUndefined()
    const dashboard = config.sets.get('dashboard')!
    const updater = config.sets.get('updater')!
    expect(dashboard.redactEnv).toBe(true)
    expect(updater.redactEnv).toBe(false)
    expect(decide(dashboard.rules, 'POST', '/v1.41/containers/web/stop').allowed).toBe(false)
    expect(decide(updater.rules, 'POST', '/v1.41/containers/web/stop').allowed).toBe(true)
    expect(decide(updater.rules, 'GET', '/_ping').allowed).toBe(true)
    const chosen = (identity: Parameters<typeof selectRuleSet>[1]) =>
      selectRuleSet(config.selectors, identity)?.ruleSet
    expect(chosen({ address: '127.0.0.2', frontend: 'tcp://:2375' })).toBe('dashboard')
    expect(chosen({ frontend: 'unix:///run/updater.sock' })).toBe('updater')
    expect(chosen({ address: '127.0.0.3', frontend: 'tcp://:2375' })).toBeUndefined()
  })

  it('lets PROXY_CLIENTS name presets and sections, after the selectors of the file', () => {
    const config = resolveRuleSets({
      ...file(twoClients),
      clients: parseClientsSetting('source 127.0.0.0/8 read-only; source 10.0.0.1 updater'),
    })
    expect(config.selectors.map((selector) => selector.ruleSet)).toEqual([
      'dashboard',
      'dashboard',
      'updater',
      'read-only',
      'updater',
    ])
    expect(config.sets.get('read-only')?.redactEnv).toBe(true)
    expect(selectRuleSet(config.selectors, { address: '127.0.0.7', frontend: 'x' })?.ruleSet).toBe(
      'read-only',
    )
  })

  it.each([
    [{ redactEnv: false }, false],
    [{ redactEnv: true }, true],
  ])('PROXY_REDACT_ENV %j sets the default of every set', (extra, wanted) => {
    const config = resolveRuleSets({ ...file(twoClients), ...extra })
    expect(config.sets.get('updater')?.redactEnv).toBe(wanted)
    expect(config.sets.get('dashboard')?.redactEnv).toBe(wanted)
  })

  it('a redact-env line in a section wins', () => {
    const config = resolveRuleSets({
      ...file('[a]\nclient source 127.0.0.2\nredact-env on\nGET /x'),
      redactEnv: false,
    })
    expect(config.sets.get('a')?.redactEnv).toBe(true)
  })

  it('PROXY_PRESET read-only masks by default; redact-env off turns it off', () => {
    expect(resolveRuleSets({ texts: [], preset: 'read-only' }).everyone?.redactEnv).toBe(true)
    expect(resolveRuleSets({ ...file('redact-env off'), preset: 'read-only' }).everyone?.redactEnv).toBe(
      false,
    )
  })

  it.each([
    ['[a]\nGET /x', 'chosen by no client'],
    ['GET /x\n[a]\nclient source 127.0.0.2\nGET /y', 'cannot be combined with client selectors'],
    ['client source 127.0.0.2', 'line 1: a "client" line belongs inside a [rule-set] section'],
    ['[a]\nclient source nope', 'line 2: "nope" is not an IP address'],
    ['[a]\nclient source 127.0.0.2\npreset nope', 'line 3: there is no preset "nope"'],
    ['[a]\nclient source 127.0.0.2\nredact-env yes', 'line 3: redact-env takes "on" or "off"'],
    ['[read-only]\nclient source 127.0.0.2', 'is the name of a preset'],
    ['[a]\nclient source 127.0.0.2 \nGET /x)', 'line 3: the pattern does not compile'],
    [
      '[a]\nclient source 127.0.0.2\nclients source 127.0.0.3',
      'line 3: "clients" is not a comma-separated list',
    ],
  ])('refuses %j (%s)', (text, message) => {
    expect(() => resolveRuleSets(file(text))).toThrow(message)
  })

  it('refuses a PROXY_CLIENTS rule set that is neither a section nor a preset', () => {
    expect(() =>
      resolveRuleSets({ texts: [], clients: parseClientsSetting('source 127.0.0.2 nope') }),
    ).toThrow('"nope" is neither a [rule-set] section nor a preset')
  })

  it('leaves the built-ins out of every set with noBuiltinRules', () => {
    const config = resolveRuleSets({ ...file(twoClients), noBuiltinRules: true })
    expect(decide(config.sets.get('updater')!.rules, 'GET', '/_ping').allowed).toBe(false)
  })
})

describe('the example in examples/proxy/README.md', () => {
  it('resolves into the two rule sets it describes', async () => {
    const { readFileSync } = await import('node:fs')
    const readme = readFileSync(new URL('../../../examples/proxy/README.md', import.meta.url), 'utf8')
    const example = /## Per-client rule sets[\s\S]*?```\n([\s\S]*?)```/.exec(readme)![1]!
    const config = resolveRuleSets(file(example))
    expect([...config.sets.keys()]).toEqual(['dashboard', 'updater'])
    expect(config.selectors.map((selector) => selector.matcher.kind)).toEqual(['source', 'cert', 'frontend'])
    expect(decide(config.sets.get('updater')!.rules, 'POST', '/v1.47/images/create').allowed).toBe(true)
  })
})
