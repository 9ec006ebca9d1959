/**
 * `vault run` and `vault rotate` against a real vault server and the harness's real Docker engine,
 * driven through the real docker-compose client: a busybox fixture stack (network_mode: none) sees
 * the vault's values; rotation recreates exactly the services that reference the secret; a failing
 * hook leaves the vault and every container unchanged. `vault run` is the built CLI (docker-compose is
 * its child); rotate and secrets run in this process, but where DOCKER_HOST's way to compose is checked.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { runVault } from '../helpers/run-vault.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer } from '../helpers/vault-server.js'

const engine = engineOrNull()
const fixture = fileURLToPath(new URL('../fixtures/stacks/rotate', import.meta.url))

describe.skipIf(!engine)(`vault run and rotate with a real engine (${unavailableReason('engine')})`, () => {
  let server: Awaited<ReturnType<typeof startVaultServer>>
  let home: TempHome
  let stack: string
  let env: Record<string, string>

  const docker = (...args: string[]) =>
    execFileSync('docker', args, { env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost } })
      .toString('utf8')
      .trim()
  const containerId = (service: string) =>
    docker(
      'ps',
      '-q',
      '--no-trunc',
      '--filter',
      `label=com.docker.compose.service=${service}`,
      '--filter',
      `label=com.docker.compose.project=${projectName()}`,
    )
  const projectName = () =>
    stack
      .split('/')
      .at(-1)!
      .toLowerCase()
      .replace(/[^a-z0-9_-]/g, '')
  const containerEnv = (service: string, name: string) =>
    docker('exec', containerId(service), 'sh', '-c', `printf %s "$${name}"`)
  const ids = () =>
    Object.fromEntries(['db', 'app', 'worker'].map((service) => [service, containerId(service)]))
  /** `vault run` spawned (docker-compose is its child); rotate and secrets in this process. */
  const vault = (args: string[], input?: string) =>
    runVault(args, { env, cwd: stack, input, timeout: 120_000 })
  /** Spawned: what reaches docker-compose's environment (DOCKER_HOST) is the point. */
  const spawned = (args: string[]) => runCli(args, { env, cwd: stack, timeout: 120_000 })

  beforeAll(async () => {
    server = await startVaultServer({})
    home = createTempHome()
    stack = mkdtempSync('/tmp/vaultstack')
    cpSync(fixture, stack, { recursive: true })
    const credentials = server.deploymentCredentials
    env = {
      ...home.env,
      DOCKER_HOST: engine!.dockerHost,
      VAULT_DOMAIN: server.url,
      VAULT_PROJECT_ID: server.projectId,
      VAULT_CLIENT_ID: credentials.clientId,
      VAULT_CLIENT_SECRET: credentials.clientSecret,
    }
    for (const [name, value] of Object.entries({
      DATABASE_PASSWORD: 'db-pw-initial',
      AUTH_JWT_SECRET: 'jwt-initial',
      TZ: 'Europe/Paris',
      FRAGILE_TOKEN: 'good-initial',
    })) {
      expect((await vault(['secrets', 'set', name, '--env', 'dev'], value)).exitCode).toBe(0)
    }
  })

  afterAll(async () => {
    if (stack) {
      await runCli(['run', '--env', 'dev', '--', 'docker-compose', 'down', '-t', '1'], { env, cwd: stack })
      rmSync(stack, { recursive: true, force: true })
    }
    await server?.stop()
    home?.cleanup()
  })

  it('vault run --env dev -- docker-compose up -d starts the stack; containers see the vault values', async () => {
    const result = await vault(['run', '--env', 'dev', '--', 'docker-compose', 'up', '-d'])
    expect(result.exitCode).toBe(0)
    expect(containerEnv('db', 'POSTGRES_PASSWORD')).toBe('db-pw-initial')
    expect(containerEnv('app', 'DB_PASSWORD')).toBe('db-pw-initial')
    expect(containerEnv('app', 'JWT_SECRET')).toBe('jwt-initial')
    expect(containerEnv('worker', 'TZ')).toBe('Europe/Paris')
  })

  it('rotate DATABASE_PASSWORD recreates db and app only; they see the new value', async () => {
    const before = ids()
    const result = await vault(['rotate', 'DATABASE_PASSWORD', '--env', 'dev', '--stable', '1', '--json'])
    expect(result.exitCode).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({
      name: 'DATABASE_PASSWORD',
      previousVersion: 1,
      version: 2,
      vaultVersion: 2,
      vaultHolds: 'new',
      outcome: 'rotated',
      restarted: true,
      healthy: true,
    })
    expect(result.stderr).toMatch(/DATABASE_PASSWORD looks like a database password/)
    expect(report.services.map((service: { service: string }) => service.service)).toEqual(['app', 'db'])
    const after = ids()
    expect(after.db).not.toBe(before.db)
    expect(after.app).not.toBe(before.app)
    expect(after.worker).toBe(before.worker)
    const newValue = (await vault(['secrets', 'get', 'DATABASE_PASSWORD', '--env', 'dev'])).stdout
    expect(newValue).toMatch(/^[A-Za-z0-9]{32}$/)
    expect(result.stdout + result.stderr).not.toContain(newValue)
    expect(containerEnv('db', 'POSTGRES_PASSWORD')).toBe(newValue)
    expect(containerEnv('app', 'DB_PASSWORD')).toBe(newValue)
  })

  it('a failing --hook leaves the vault and every container unchanged', async () => {
    const before = ids()
    const valueBefore = (await vault(['secrets', 'get', 'DATABASE_PASSWORD', '--env', 'dev'])).stdout
    const result = await vault([
      'rotate',
      'DATABASE_PASSWORD',
      '--env',
      'dev',
      '--hook',
      'cat > /dev/null; exit 3',
    ])
    // a hook that refuses is a finding (exit 10, HookFailedError), not a bug of vault (exit 1)
    expect(result.exitCode).toBe(10)
    expect(result.stderr).toMatch(/the hook exited with 3: nothing was changed/)
    expect((await vault(['secrets', 'get', 'DATABASE_PASSWORD', '--env', 'dev'])).stdout).toBe(valueBefore)
    expect(ids()).toEqual(before)
  })

  it('a service that exits after the rotation is rolled back: exit 11, the vault and the container hold the old value', async () => {
    const result = await vault(['rotate', 'FRAGILE_TOKEN', '--env', 'dev', '--stable', '1', '--wait', '30'])
    expect(result.exitCode).toBe(11)
    expect(result.stderr).toMatch(/FAIL fragile: exited - the container exited/)
    expect(result.stderr).toMatch(/the vault holds version 3 \(the value of version 1\)/)
    expect((await vault(['secrets', 'get', 'FRAGILE_TOKEN', '--env', 'dev'])).stdout).toBe('good-initial')
    expect(containerEnv('fragile', 'TOKEN')).toBe('good-initial')
    const kept = await vault([
      'rotate',
      'FRAGILE_TOKEN',
      '--env',
      'dev',
      '--stable',
      '1',
      '--no-rollback',
      '--json',
    ])
    expect(kept.exitCode).toBe(10)
    expect(JSON.parse(kept.stdout)).toMatchObject({
      outcome: 'unhealthy',
      vaultVersion: 4,
      vaultHolds: 'new',
    })
    expect((await vault(['secrets', 'rollback', 'FRAGILE_TOKEN', '1', '--env', 'dev'])).exitCode).toBe(0)
  })

  it('a succeeding --hook gets the new value on stdin before the vault changes', async () => {
    const seen = join(stack, 'hook-saw')
    const result = await vault([
      'rotate',
      'AUTH_JWT_SECRET',
      '--env',
      'dev',
      '--no-restart',
      '--hook',
      `umask 077; cat > ${seen}`,
    ])
    expect(result.exitCode).toBe(0)
    const stored = (await vault(['secrets', 'get', 'AUTH_JWT_SECRET', '--env', 'dev'])).stdout
    expect(stored).toMatch(/^[0-9a-f]{64}$/)
    expect(execFileSync('cat', [seen]).toString()).toBe(stored)
  })

  it('rotate refuses a vault DOCKER_HOST (exit 4, nothing changed) unless --allow-env DOCKER_HOST', async () => {
    // the engine's address is itself a vault secret: compose must reach the engine it names
    expect(
      (await vault(['secrets', 'set', 'DOCKER_HOST', '--env', 'dev'], engine!.dockerHost)).exitCode,
    ).toBe(0)
    try {
      const before = ids()
      const refused = await spawned(['rotate', 'AUTH_JWT_SECRET', '--env', 'dev', '--stable', '1'])
      expect(refused.exitCode).toBe(4)
      expect(refused.stderr).toContain('refusing to set DOCKER_HOST from the vault')
      expect(refused.stderr).toContain('--allow-env DOCKER_HOST')
      expect(ids()).toEqual(before)
      const version = JSON.parse(
        (await vault(['secrets', 'get', 'AUTH_JWT_SECRET', '--env', 'dev', '--json'])).stdout,
      ) as { version: number }
      const allowed = await spawned([
        'rotate',
        'AUTH_JWT_SECRET',
        '--env',
        'dev',
        '--stable',
        '1',
        '--allow-env',
        'DOCKER_HOST',
        '--json',
      ])
      expect(allowed.exitCode, allowed.stderr).toBe(0)
      expect(JSON.parse(allowed.stdout)).toMatchObject({
        previousVersion: version.version,
        outcome: 'rotated',
        restarted: true,
      })
      const after = ids()
      expect(after.app).not.toBe(before.app)
      expect(after.db).toBe(before.db)
    } finally {
      await vault(['secrets', 'delete', 'DOCKER_HOST', '--env', 'dev'])
    }
  })
})
