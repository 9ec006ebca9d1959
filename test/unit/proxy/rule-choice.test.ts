/** Choosing a connection's rule set from its socket (fake sockets: the unit under test reads three fields). */
import type net from 'node:net'
import { describe, expect, it } from 'vitest'
import { parseClientsSetting } from '../../../src/proxy/client-rules.js'
import { chooseRuleSet, identityOf } from '../../../src/proxy/rule-choice.js'
import { resolveRuleSets } from '../../../src/proxy/rule-sets.js'

const socket = (fields: Record<string, unknown>) => fields as unknown as net.Socket
const config = resolveRuleSets({
  texts: [],
  clients: parseClientsSetting('cert CN=dashboard monitoring; source 127.0.0.3 management'),
})

describe('identityOf', () => {
  it('reads the verified client certificate only', () => {
    const cert = { getPeerCertificate: () => ({ subject: { CN: 'dashboard' } }), encrypted: true }
    expect(
      identityOf(socket({ remoteAddress: '127.0.0.2', ...cert, authorized: true }), 'f').certSubject,
    ).toEqual({
      CN: 'dashboard',
    })
    expect(
      identityOf(socket({ remoteAddress: '127.0.0.2', ...cert, authorized: false }), 'f').certSubject,
    ).toBe(undefined)
  })

  it('has no address on a unix socket', () => {
    expect(identityOf(socket({}), 'unix:///run/p.sock')).toEqual({ frontend: 'unix:///run/p.sock' })
  })
})

describe('chooseRuleSet', () => {
  it('chooses by certificate, then by source address; refuses the rest with who they are', () => {
    const dashboard = socket({
      remoteAddress: '127.0.0.3',
      encrypted: true,
      authorized: true,
      getPeerCertificate: () => ({ subject: { CN: 'dashboard' } }),
    })
    expect(chooseRuleSet(config, dashboard, 'tcp://:2376').ruleSet?.name).toBe('monitoring')
    expect(chooseRuleSet(config, socket({ remoteAddress: '127.0.0.3' }), 'tcp://:2376').ruleSet?.name).toBe(
      'management',
    )
    const stranger = chooseRuleSet(config, socket({ remoteAddress: '127.0.0.9' }), 'tcp://:2376')
    expect(stranger.ruleSet).toBeUndefined()
    if (!stranger.ruleSet)
      expect(stranger.refusal).toBe('no rule set for this client (source 127.0.0.9, frontend tcp://:2376)')
  })

  it('keeps the choice for the connection', () => {
    const connection = socket({ remoteAddress: '127.0.0.3' })
    const first = chooseRuleSet(config, connection, 'tcp://:2376')
    ;(connection as unknown as { remoteAddress: string }).remoteAddress = '127.0.0.9'
    expect(chooseRuleSet(config, connection, 'tcp://:2376')).toBe(first)
  })

  it('gives everyone the one set when there are no selectors', () => {
    const everyone = resolveRuleSets({ texts: [], preset: 'read-only' })
    expect(chooseRuleSet(everyone, socket({ remoteAddress: '10.9.9.9' }), 'x').ruleSet?.name).toBe('*')
  })
})
