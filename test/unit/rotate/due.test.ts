/**
 * `vault rotate --due` over a fake vault API: plain (non-secret) values left out, overrides before the
 * default rules, the due count matching the reports.
 */
import { describe, expect, it } from 'vitest'
import type { VaultApi } from '../../../src/client/vault-api.js'
import { UsageError } from '../../../src/errors.js'
import { dueSecrets } from '../../../src/rotate/due.js'

const now = Date.parse('2026-06-01T00:00:00Z')
const daysAgo = (days: number) => new Date(now - days * 86_400_000).toISOString()

const api = {
  listSecretNames: async () => [
    { name: 'DB_PASSWORD', version: 1, updatedAt: daysAgo(100) },
    { name: 'API_TOKEN', version: 1, updatedAt: daysAgo(10) },
    { name: 'LOG_LEVEL', version: 1, updatedAt: daysAgo(1000), plain: true },
  ],
} as unknown as VaultApi

describe('dueSecrets', () => {
  it('reports every secret but the plain values, and counts the due ones', async () => {
    const result = await dueSecrets(api, 'prod', [], now)
    expect(result.environment).toBe('prod')
    expect(result.secrets.map((secret) => secret.name).sort()).toEqual(['API_TOKEN', 'DB_PASSWORD'])
    expect(result.due).toBe(result.secrets.filter((secret) => secret.due).length)
    expect(result.secrets.find((secret) => secret.name === 'DB_PASSWORD')?.ageDays).toBe(100)
  })

  it('lets an override come before the default rules', async () => {
    const strict = await dueSecrets(api, undefined, ['*_TOKEN=5', 'DB_PASSWORD=1000'], now)
    const byName = new Map(strict.secrets.map((secret) => [secret.name, secret]))
    expect(byName.get('API_TOKEN')).toMatchObject({ maxAgeDays: 5, due: true })
    expect(byName.get('DB_PASSWORD')).toMatchObject({ maxAgeDays: 1000, due: false })
    expect(strict.due).toBe(1)
  })

  it('refuses a malformed override before asking the vault', async () => {
    let asked = false
    const watching = { listSecretNames: async () => ((asked = true), []) } as unknown as VaultApi
    await expect(dueSecrets(watching, undefined, ['DB_PASSWORD=-1'], now)).rejects.toThrow(UsageError)
    expect(asked).toBe(false)
  })
})
