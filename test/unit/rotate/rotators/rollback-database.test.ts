import { describe, expect, it } from 'vitest'
import type {
  Secret,
  SecretMetadata,
  SecretVersionValue,
  VaultApi,
} from '../../../../src/client/vault-api.js'
import { UsageError } from '../../../../src/errors.js'
import { rollbackWithRotator } from '../../../../src/rotate/rotators/rollback-database.js'
import type { DatabaseRotator } from '../../../../src/rotate/rotators/rotator.js'

interface Held {
  value: string
  template?: boolean
}

/** A vault holding two versions of DB_PASSWORD, and a rotator that records what it was asked to set. */
function setting(current: Held, earlier: Held) {
  const applied: [string, string][] = []
  const rolledBack: number[] = []
  const metadata: SecretMetadata = { name: 'DB_PASSWORD', version: 2, createdAt: 't', updatedAt: 't' }
  const api = {
    getSecret: async (): Promise<Secret> => ({ ...metadata, ...current }),
    secretVersion: async (): Promise<SecretVersionValue> => ({
      name: 'DB_PASSWORD',
      version: 1,
      createdAt: 't',
      ...earlier,
    }),
    rollback: async (_name: string, version: number): Promise<SecretMetadata> => {
      rolledBack.push(version)
      return { ...metadata, version: 3 }
    },
  } as unknown as VaultApi
  const rotator: DatabaseRotator = {
    name: 'postgres',
    apply: async (from, to) => void applied.push([from, to]),
    revert: async () => undefined,
  }
  const run = () =>
    rollbackWithRotator(api, {
      name: 'DB_PASSWORD',
      version: 1,
      environment: 'prod',
      rotator,
      note: () => undefined,
    })
  return { applied, rolledBack, run }
}

describe('rollbackWithRotator', () => {
  it('sets the earlier password inside the database, then rolls the vault back', async () => {
    const { applied, rolledBack, run } = setting({ value: 'new-pass' }, { value: 'old-pass' })
    await run()
    expect(applied).toEqual([['new-pass', 'old-pass']])
    expect(rolledBack).toEqual([1])
  })

  it.each([
    ['the earlier version', { value: 'new-pass' }, { value: 'x-${OTHER_PASSWORD}', template: true }],
    ['the current version', { value: 'x-${OTHER_PASSWORD}', template: true }, { value: 'old-pass' }],
  ])(
    'refuses when %s is a template, before the database or the vault is touched',
    async (_which, current, earlier) => {
      const { applied, rolledBack, run } = setting(current, earlier)
      const error = await run().then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(error).toBeInstanceOf(UsageError)
      expect((error as Error).message).toMatch(/DB_PASSWORD version \d is a template/)
      expect(applied).toEqual([])
      expect(rolledBack).toEqual([])
    },
  )
})
