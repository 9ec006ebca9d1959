/**
 * The values `vault scan` looks for, from a recorded fake of the vault API: every current value and
 * every past version's, a deleted or vanished version left out, any other failure passed on.
 */
import { describe, expect, it } from 'vitest'
import type { VaultApi } from '../../../src/client/vault-api.js'
import { NotFoundError, UnreachableError } from '../../../src/errors.js'
import { loadSecretValues } from '../../../src/scan/secret-values.js'

type Versions = Record<string, Array<{ version: number; deleted?: boolean; value?: string }>>

function fakeApi(current: Record<string, number>, versions: Versions, fail?: Error) {
  const calls: string[] = []
  let inFlight = 0
  let mostInFlight = 0
  const api = {
    listSecrets: async (environment: string | undefined) => {
      calls.push(`list ${environment}`)
      return Object.entries(current).map(([name, version]) => ({
        name,
        version,
        value: `${name}@${version}`,
      }))
    },
    versions: async (name: string) => versions[name]!.map(({ version, deleted }) => ({ version, deleted })),
    secretVersion: async (name: string, version: number) => {
      inFlight++
      mostInFlight = Math.max(mostInFlight, inFlight)
      await new Promise((resolve) => setTimeout(resolve, 1))
      inFlight--
      calls.push(`get ${name} ${version}`)
      const entry = versions[name]!.find((candidate) => candidate.version === version)!
      if (entry.value === undefined) throw fail ?? new NotFoundError('gone')
      return { value: entry.value }
    },
  }
  return { api: api as unknown as VaultApi, calls, mostInFlight: () => mostInFlight }
}

describe('loadSecretValues', () => {
  it('takes the current values and every past one not deleted', async () => {
    const { api, calls } = fakeApi(
      { A: 3, B: 1 },
      {
        A: [{ version: 1, value: 'a1' }, { version: 2, deleted: true, value: 'a2' }, { version: 3 }],
        B: [{ version: 1 }],
      },
    )
    const { secrets, values } = await loadSecretValues(api, 'prod')
    expect(secrets).toBe(2)
    expect(values).toEqual([
      { name: 'A', version: 3, current: true, value: 'A@3' },
      { name: 'B', version: 1, current: true, value: 'B@1' },
      { name: 'A', version: 1, current: false, value: 'a1' },
    ])
    expect(calls).toEqual(['list prod', 'get A 1'])
  })

  it('leaves out a version the server no longer has', async () => {
    const { api } = fakeApi({ A: 2 }, { A: [{ version: 1 }, { version: 2 }] })
    expect((await loadSecretValues(api, undefined)).values).toHaveLength(1)
  })

  it('passes any other failure on', async () => {
    const { api } = fakeApi({ A: 2 }, { A: [{ version: 1 }, { version: 2 }] }, new UnreachableError('down'))
    await expect(loadSecretValues(api, undefined)).rejects.toThrow(UnreachableError)
  })

  it('reads past versions at most 8 at a time, all of them', async () => {
    const many = Array.from({ length: 30 }, (_, index) => ({ version: index + 1, value: `v${index + 1}` }))
    const { api, mostInFlight } = fakeApi({ A: 31 }, { A: [...many, { version: 31 }] })
    const { values } = await loadSecretValues(api, undefined)
    expect(values.filter((value) => !value.current).map((value) => value.version)).toEqual(
      many.map((entry) => entry.version),
    )
    expect(mostInFlight()).toBe(8)
  })
})
