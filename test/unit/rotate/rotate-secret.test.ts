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

describe('rotateSecret and copies of the value in other secrets', () => {
  const canary = 'canary-old-pg-password-3f9a'
  function copyingApi(others: { name: string; value: string; template?: boolean }[]) {
    const calls: string[] = []
    const api = {
      listSecrets: async () => [{ name: 'POSTGRES_PASSWORD', value: canary }, ...others],
      getSecret: async () => ({ name: 'POSTGRES_PASSWORD', value: canary, version: 1 }),
      patchSecret: async () => {
        calls.push('patch')
        return { version: 2 }
      },
      rollback: async () => {
        calls.push('rollback')
        return { version: 3 }
      },
    }
    return { api: api as unknown as VaultApi, calls }
  }
  const copies = [
    { name: 'DATABASE_URL', value: `postgresql://app:${encodeURIComponent(canary)}@db:5432/app` },
    { name: 'S3_SECRET', value: canary },
    { name: 'TEMPLATED_URL', value: 'postgresql://app:${POSTGRES_PASSWORD}@db/app', template: true },
    { name: 'THROUGH', value: 'x=${TEMPLATED_URL}', template: true },
  ]

  it('refuses with exit 6, names the copies (never a value) and changes nothing', async () => {
    const { api, calls } = copyingApi(copies)
    const database = fakeRotator()
    const notes: string[] = []
    const error = await rotateSecret(api, {
      ...base,
      name: 'POSTGRES_PASSWORD',
      value: undefined,
      rotator: database.rotator,
      hook: 'touch /tmp/never-run',
      rollback: true,
      note: (line) => notes.push(line),
    }).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'ERR_CONFLICT', exitCode: 6 })
    const message = `${(error as Error).message} ${(error as { hint?: string }).hint}`
    expect(message).toContain('DATABASE_URL, S3_SECRET hold a copy of the value of POSTGRES_PASSWORD')
    expect(message).toContain('vault secrets set DATABASE_URL --template')
    expect(message).not.toMatch(/TEMPLATED_URL|THROUGH/)
    expect(`${message} ${notes.join('\n')} ${JSON.stringify(error)}`).not.toContain('canary')
    expect(calls).toEqual([])
    expect(database.calls).toEqual([])
    expect(restartSecrets).toEqual([])
  })

  it('--force rotates and warns by name', async () => {
    const { api, calls } = copyingApi(copies)
    const notes: string[] = []
    restarts.push(up)
    const result = await rotateSecret(api, {
      ...base,
      name: 'POSTGRES_PASSWORD',
      rollback: true,
      force: true,
      note: (line) => notes.push(line),
    })
    expect(result.outcome).toBe('rotated')
    expect(calls).toEqual(['patch'])
    expect(notes.join('\n')).toContain(
      '--force: DATABASE_URL, S3_SECRET still hold the old value of POSTGRES_PASSWORD',
    )
    expect(notes.join('\n')).not.toContain('canary')
    expect(notes).toContain(
      'POSTGRES_PASSWORD is named by the templates TEMPLATED_URL, THROUGH: their services are recreated too (vault render --who-uses POSTGRES_PASSWORD --env dev lists them)',
    )
  })

  it('a value shorter than 8 characters is not compared, and the rotation says so', async () => {
    const notes: string[] = []
    const api = {
      listSecrets: async () => [
        { name: 'PIN', value: 'x1y2z3' },
        { name: 'HOLDER', value: 'has x1y2z3 inside' },
      ],
      getSecret: async () => ({ name: 'PIN', value: 'x1y2z3', version: 1 }),
      patchSecret: async () => ({ version: 2 }),
    } as unknown as VaultApi
    restarts.push(up)
    await rotateSecret(api, { ...base, name: 'PIN', rollback: true, note: (line) => notes.push(line) })
    expect(notes).toContain('PIN is shorter than 8 characters: not checked for copies inside other secrets')
  })
})
