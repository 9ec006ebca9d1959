import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { VaultApi } from '../../../src/client/vault-api.js'
import type { ServiceReport } from '../../../src/rotate/restart.js'

const restarts: { services: ServiceReport[]; healthy: boolean }[] = []
const restartSecrets: Record<string, string>[] = []
vi.mock('../../../src/rotate/restart.js', () => ({
  planRestart: async () => ({
    services: ['db'],
    literalUsers: [],
    client: { command: 'docker-compose', prefix: [], version: 'v1' },
    workingDir: '/stack',
    files: [],
  }),
  executeRestart: async (_plan: unknown, secrets: Record<string, string>) => {
    restartSecrets.push(secrets)
    return restarts.shift()!
  },
}))
const { rotateSecret } = await import('../../../src/rotate/rotate-secret.js')

/** An in-memory vault (unit test only; the integration tests use a real server). */
function fakeApi() {
  const versions = ['old-value']
  const calls: string[] = []
  const api = {
    listSecrets: async () => [{ name: 'DB_PASSWORD', value: versions.at(-1)! }],
    getSecret: async () => ({ name: 'DB_PASSWORD', value: versions.at(-1)!, version: versions.length }),
    patchSecret: async (_name: string, value: string) => {
      calls.push('patch')
      versions.push(value)
      return { version: versions.length }
    },
    rollback: async (_name: string, version: number) => {
      calls.push(`rollback ${version}`)
      versions.push(versions[version - 1]!)
      return { version: versions.length }
    },
  }
  return { api: api as unknown as VaultApi, versions, calls }
}

function fakeRotator() {
  const calls: string[] = []
  return {
    calls,
    rotator: {
      name: 'postgres',
      apply: async (current: string, next: string) => void calls.push(`apply ${current} -> ${next}`),
      revert: async (current: string, next: string) => void calls.push(`revert ${next} -> ${current}`),
    },
  }
}

const base = {
  name: 'DB_PASSWORD',
  environment: 'dev',
  value: 'new-value',
  restart: true,
  stackDir: '/tmp',
  waitSeconds: 5,
  stableSeconds: 1,
  note: () => undefined,
}
const down = { services: [{ service: 'db', status: 'exited', ok: false }], healthy: false }
const up = { services: [{ service: 'db', status: 'running', ok: true }], healthy: true }

beforeEach(() => {
  restarts.length = 0
  restartSecrets.length = 0
})

describe('rotateSecret', () => {
  it('rolls back when the services do not come back: database, vault and services get the old value', async () => {
    const { api, versions, calls } = fakeApi()
    const database = fakeRotator()
    restarts.push(down, up)
    const result = await rotateSecret(api, { ...base, rotator: database.rotator, rollback: true })
    expect(database.calls).toEqual(['apply old-value -> new-value', 'revert new-value -> old-value'])
    expect(calls).toEqual(['patch', 'rollback 1'])
    expect(versions).toEqual(['old-value', 'new-value', 'old-value'])
    expect(restartSecrets.map((secrets) => secrets.DB_PASSWORD)).toEqual(['new-value', 'old-value'])
    expect(result).toMatchObject({
      outcome: 'rolled-back',
      vaultVersion: 3,
      vaultHolds: 'previous',
      version: 2,
    })
    expect(result.rollback?.healthy).toBe(true)
  })

  it('--no-rollback keeps the new value everywhere and says so', async () => {
    const { api, calls } = fakeApi()
    const database = fakeRotator()
    restarts.push(down)
    const result = await rotateSecret(api, { ...base, rotator: database.rotator, rollback: false })
    expect(database.calls).toEqual(['apply old-value -> new-value'])
    expect(calls).toEqual(['patch'])
    expect(result).toMatchObject({ outcome: 'unhealthy', vaultVersion: 2, vaultHolds: 'new' })
  })

  it('a failing hook after the rotator puts the old password back and never writes the vault', async () => {
    const { api, calls } = fakeApi()
    const database = fakeRotator()
    await expect(
      rotateSecret(api, {
        ...base,
        rotator: database.rotator,
        rollback: true,
        hook: 'cat >/dev/null; exit 4',
      }),
    ).rejects.toThrow(/the hook exited with 4: nothing was changed/)
    await expect(
      rotateSecret(api, { ...base, rollback: true, hook: 'cat >/dev/null; exit 4' }),
    ).rejects.toMatchObject({
      name: 'HookFailedError',
      code: 'ERR_ROTATE_HOOK',
      exitCode: 10,
      hookExitCode: 4,
    })
    expect(database.calls).toEqual(['apply old-value -> new-value', 'revert new-value -> old-value'])
    expect(calls).toEqual([])
  })

  it('a rotation whose services come back touches nothing else', async () => {
    const { api, calls } = fakeApi()
    const database = fakeRotator()
    restarts.push(up)
    const result = await rotateSecret(api, { ...base, rotator: database.rotator, rollback: true })
    expect(database.calls).toEqual(['apply old-value -> new-value'])
    expect(calls).toEqual(['patch'])
    expect(result).toMatchObject({ outcome: 'rotated', vaultVersion: 2, vaultHolds: 'new', healthy: true })
  })
})
