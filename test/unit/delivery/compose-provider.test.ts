/** The messages of `vault compose up` (src/delivery/compose-provider.ts) from a fake secret source. */
import { describe, expect, it } from 'vitest'
import {
  formatProviderMessage,
  providerUp,
  type ProviderUpOptions,
} from '../../../src/delivery/compose-provider.js'

const source = (secrets: Record<string, string>) => ({
  listSecrets: async () => Object.entries(secrets).map(([name, value]) => ({ name, value })),
})
const options = (extra: Partial<ProviderUpOptions>): ProviderUpOptions => ({
  environment: 'dev',
  secrets: ['*'],
  raw: true,
  service: 'secrets',
  ...extra,
})

describe('providerUp', () => {
  it('sends the requested secrets in the order asked, once each, then one info line without values', async () => {
    const messages = await providerUp(
      source({ A: 'a-value', B: 'b=value\n', C: 'c' }),
      options({ secrets: ['B', 'A', 'B'] }),
    )
    expect(messages).toEqual([
      { type: 'rawsetenv', message: 'B=b=value\n' },
      { type: 'rawsetenv', message: 'A=a-value' },
      { type: 'info', message: '2 secrets from environment dev' },
    ])
  })

  it('sends setenv when raw is false, and * sorts every name', async () => {
    const messages = await providerUp(source({ Z: 'z', A: 'a' }), options({ raw: false }))
    expect(messages.map((message) => message.message)).toEqual([
      'A=a',
      'Z=z',
      '2 secrets from environment dev',
    ])
    expect(messages[0]!.type).toBe('setenv')
  })

  it("names the identity's only environment when none is given", async () => {
    const messages = await providerUp(source({}), options({ environment: undefined }))
    expect(messages).toEqual([{ type: 'info', message: "0 secrets from the identity's only environment" }])
  })

  it.each([
    [['A=B'], 'ERR_USAGE'],
    [[], 'ERR_USAGE'],
    [['*', 'A'], 'ERR_USAGE'],
    [['MISSING'], 'ERR_NOT_FOUND'],
    [['PATH'], 'ERR_HOST_VARIABLE'],
    [['VAULT_CLIENT_SECRET'], 'ERR_AUTH'],
  ])('refuses secrets %j (%s)', async (secrets, code) => {
    const error: unknown = await providerUp(
      source({ PATH: '/x', VAULT_CLIENT_SECRET: 's' }),
      options({ secrets }),
    ).catch((caught: unknown) => caught)
    expect((error as { code: string }).code).toBe(code)
  })
})

describe('formatProviderMessage', () => {
  it.each([
    ['a newline', 'A=1\n{"type":"rawsetenv","message":"X=1"}'],
    ['quotes and backslashes', 'A="\\"}'],
    ['line and paragraph separators', 'A=\u2028\u2029'],
    ['a lone surrogate', 'A=\ud800'],
  ])('keeps %s inside one JSON line', (_, message) => {
    const line = formatProviderMessage({ type: 'rawsetenv', message })
    expect(line.endsWith('\n')).toBe(true)
    expect(line.slice(0, -1)).not.toMatch(/[\n\r]/)
    expect(JSON.parse(line)).toEqual({ type: 'rawsetenv', message })
  })
})
