/**
 * What `vault compose metadata` prints for compose (2.37+), which passes a service's provider.options only
 * when they are declared here: each declared parameter must be a flag of `vault compose up` (compose hands
 * them over as `--name=value`), with a type and default that agree with the flag, in the JSON shape of
 * docker/compose's ProviderMetadata (pkg/compose/plugins.go).
 */
import { describe, expect, it } from 'vitest'
import Compose from '../../../src/commands/compose/index.js'
import { providerMetadata, upParameters } from '../../../src/delivery/compose-provider-metadata.js'

type Flag = { type: string; multiple?: boolean; default?: unknown; options?: readonly string[] }

describe('providerMetadata', () => {
  const flags = Compose.flags as unknown as Record<string, Flag>

  it('declares only flags of `vault compose up`, with the matching type and default', () => {
    for (const parameter of upParameters) {
      const flag = flags[parameter.name]
      expect(flag, parameter.name).toBeDefined()
      if (parameter.type === 'stringArray') expect(flag!.multiple, parameter.name).toBe(true)
      if (parameter.type === 'bool') expect(flag!.options).toEqual(['true', 'false'])
      if (parameter.default !== undefined) expect(String(flag!.default)).toBe(parameter.default)
    }
  })

  it('has the JSON shape compose reads: strings, booleans, `default` a string when present', () => {
    const document = JSON.parse(JSON.stringify(providerMetadata())) as Record<string, unknown>
    expect(Object.keys(document).sort()).toEqual(['description', 'down', 'stop', 'up'])
    for (const command of ['up', 'down', 'stop']) {
      const { parameters } = document[command] as { parameters: Record<string, unknown>[] }
      for (const parameter of parameters) {
        expect(typeof parameter.name).toBe('string')
        expect(typeof parameter.description).toBe('string')
        expect(typeof parameter.required).toBe('boolean')
        expect(['string', 'stringArray', 'bool', 'int']).toContain(parameter.type)
        if ('default' in parameter) expect(typeof parameter.default).toBe('string')
      }
    }
    expect((document.down as { parameters: unknown[] }).parameters).toEqual([])
  })

  it('requires the secrets, so compose refuses a stack that forgets to name them', () => {
    expect(upParameters.filter((parameter) => parameter.required).map((parameter) => parameter.name)).toEqual(
      ['secrets'],
    )
  })

  it('gives a fresh copy each time (a caller cannot change the declared parameters)', () => {
    const first = providerMetadata()
    first.up.parameters[0]!.required = true
    expect(providerMetadata().up.parameters[0]!.required).toBe(false)
  })
})
