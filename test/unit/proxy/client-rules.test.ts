/** Per-client rule sets: choosing a rule set from a connection's identity (pure). */
import { describe, expect, it } from 'vitest'
import {
  ClientMatcherError,
  describeIdentity,
  parseClientMatcher,
  parseClientsSetting,
  selectRuleSet,
  type ClientIdentity,
} from '../../../src/proxy/client-rules.js'

const tcp = (address: string, frontend = 'tcp://127.0.0.1:2375'): ClientIdentity => ({ address, frontend })

describe('client matchers', () => {
  it.each([
    ['source', '127.0.0.2', tcp('127.0.0.2'), true],
    ['source', '127.0.0.2', tcp('127.0.0.3'), false],
    ['source', '127.0.0.2', tcp('::ffff:127.0.0.2'), true],
    ['source', '10.0.0.0/8', tcp('10.200.3.4'), true],
    ['source', '10.0.0.0/8', tcp('11.0.0.1'), false],
    ['source', '127.0.0.0/30', tcp('127.0.0.3'), true],
    ['source', '127.0.0.0/30', tcp('127.0.0.4'), false],
    ['source', '0.0.0.0/0', tcp('192.0.2.1'), true],
    ['source', 'fd00::/8', tcp('fd12::1'), true],
    ['source', 'fd00::/8', tcp('fe80::1'), false],
    ['source', '::1', tcp('::1'), true],
    ['source', '127.0.0.1', { frontend: 'unix:///run/p.sock' }, false],
    ['source', 'fe80::1%eth0', tcp('fe80::1%eth0'), true],
    ['source', 'fe80::1%eth0', tcp('fe80::1%docker0'), false],
    ['source', 'fe80::/10', tcp('fe80::1%docker0'), true],
    ['cert', 'CN=dashboard', { frontend: 'x', certSubject: { CN: 'dashboard', O: 'acme' } }, true],
    ['cert', 'CN=dashboard,O=acme', { frontend: 'x', certSubject: { CN: 'dashboard', O: 'acme' } }, true],
    ['cert', 'CN=dashboard, O=other', { frontend: 'x', certSubject: { CN: 'dashboard', O: 'acme' } }, false],
    ['cert', 'CN=dash', { frontend: 'x', certSubject: { CN: 'dashboard' } }, false],
    ['cert', 'OU=ops', { frontend: 'x', certSubject: { OU: ['dev', 'ops'] } }, true],
    ['cert', 'CN=dashboard', { frontend: 'x', certSubject: { CN: ['evil', 'dashboard'] } }, false],
    ['cert', 'CN=dashboard', tcp('127.0.0.2'), false],
    ['frontend', 'unix:///run/dash.sock', { frontend: 'unix:///run/dash.sock?mode=0660' }, true],
    ['frontend', 'unix:///run/dash.sock', { frontend: 'unix:///run/other.sock' }, false],
    ['frontend', 'tcp://127.0.0.1:2376', tcp('127.0.0.1', 'tcp://127.0.0.1:2376'), true],
    ['frontend', 'tcp://127.0.0.1:2376', tcp('127.0.0.1', 'tcp://127.0.0.1:2375'), false],
  ] as const)('%s %s on %j: %s', (kind, value, identity, wanted) => {
    expect(parseClientMatcher(kind, value).matches(identity)).toBe(wanted)
  })

  it.each([
    ['source', 'localhost'],
    ['source', '10.0.0.0/33'],
    ['source', '10.0.0.0/8/1'],
    ['source', '10.0.0.0/x'],
    ['source', 'fd00::/129'],
    ['cert', 'dashboard'],
    ['cert', 'CN='],
    ['frontend', '2375'],
    ['port', '2375'],
  ])('refuses %s %j', (kind, value) => {
    expect(() => parseClientMatcher(kind, value)).toThrow(ClientMatcherError)
  })
})

describe('selectRuleSet', () => {
  const selectors = parseClientsSetting(
    'frontend unix:///run/updater.sock management; source 127.0.0.2 monitoring\n' +
      'cert CN=ci runner,O=acme fine-grained; source 10.0.0.0/8 read-only',
  )

  it.each([
    [tcp('127.0.0.2'), 'monitoring'],
    [{ frontend: 'unix:///run/updater.sock' }, 'management'],
    [tcp('10.1.2.3'), 'read-only'],
    [{ ...tcp('10.1.2.3'), certSubject: { CN: 'ci runner', O: 'acme' } }, 'fine-grained'],
    [tcp('127.0.0.9'), undefined],
    [{ frontend: 'unix:///run/other.sock' }, undefined],
  ] as const)('%j gets %s', (identity, ruleSet) => {
    expect(selectRuleSet(selectors, identity)?.ruleSet).toBe(ruleSet)
  })

  it('takes the first selector that matches, in the order written', () => {
    const ordered = parseClientsSetting('source 10.0.0.0/8 wide; source 10.0.0.5 narrow')
    expect(selectRuleSet(ordered, tcp('10.0.0.5'))?.ruleSet).toBe('wide')
  })

  it('keeps blanks inside a certificate subject and names the entry of an error', () => {
    expect(selectors[2]!.matcher.value).toBe('CN=ci runner,O=acme')
    expect(() => parseClientsSetting('source 127.0.0.2 a; source nope b')).toThrow(
      'PROXY_CLIENTS entry 2: "nope"',
    )
    expect(() => parseClientsSetting('source 127.0.0.2')).toThrow('is not "KIND VALUE RULESET"')
  })

  it('describes an identity for messages', () => {
    expect(describeIdentity({ ...tcp('::ffff:127.0.0.9'), certSubject: { CN: 'x' } })).toBe(
      'source 127.0.0.9, frontend tcp://127.0.0.1:2375, cert CN=x',
    )
  })
})
