/**
 * Issue 35 end to end: POSTGRES_PASSWORD in the vault, DATABASE_URL stored as a template naming it, a
 * compose stack on the private engine whose app service gets DATABASE_URL, and a private PostgreSQL
 * (scram-sha-256, so passwords matter). `vault rotate POSTGRES_PASSWORD --rotator postgres` changes the
 * password inside the database, recreates app (a user through the template only) and app's
 * DATABASE_URL holds the new password; the database takes the new one and refuses the old one.
 * `render --who-uses` lists app through DATABASE_URL, as rotate recreated it; a secret holding a copy of
 * the value makes the rotation refuse (exit 6) with the database, the vault and the container untouched.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  postgresUnavailableReason,
  startPostgres,
  stopPostgres,
  type PostgresInfo,
} from '../harness/postgres.js'
import { runCli } from '../helpers/cli.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { runVault } from '../helpers/run-vault.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault } from '../helpers/vault-server.js'
import { postgresAccepts } from '../helpers/database-login.js'

const engine = engineOrNull()
const reason = postgresUnavailableReason() ?? (engine ? undefined : unavailableReason('engine'))
if (reason && process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1')
  throw new Error(`VAULT_TEST_REQUIRE_COMPONENTS=1 and a component is unavailable: ${reason}`)

const compose = [
  "version: '2.4'",
  'services:',
  '  app:',
  '    image: vault-test/busybox:latest',
  '    network_mode: none',
  `    command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1; done"]`,
  '    environment:',
  '      DATABASE_URL: ${DATABASE_URL}',
  '  other:',
  '    image: vault-test/busybox:latest',
  '    network_mode: none',
  `    command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1; done"]`,
].join('\n')

describe.skipIf(reason !== undefined)(`a rotation through a template (${reason ?? 'available'})`, () => {
  let server: TestVault
  let home: TempHome
  let postgres: PostgresInfo
  let stack: string
  let env: Record<string, string>
  const old = `pg-old-${randomBytes(8).toString('hex')}`
  const template = 'postgresql://app:${POSTGRES_PASSWORD}@db:5432/app'

  /** `vault run` spawned (docker-compose is its child); the rest in this process. */
  const vault = (args: string[], input?: string) =>
    runVault(args, { env, cwd: stack, input, timeout: 120_000 })
  const stored = async (name: string) => (await vault(['secrets', 'get', name, '--env', 'dev'])).stdout
  const docker = (...args: string[]) =>
    execFileSync('docker', args, { env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost } })
      .toString('utf8')
      .trim()
  const project = () =>
    basename(stack)
      .toLowerCase()
      .replace(/[^a-z0-9_-]/g, '')
  const containerId = (service: string) =>
    docker(
      'ps',
      '-q',
      '--no-trunc',
      '--filter',
      `label=com.docker.compose.service=${service}`,
      '--filter',
      `label=com.docker.compose.project=${project()}`,
    )
  const databaseUrlInApp = () => docker('exec', containerId('app'), 'sh', '-c', 'printf %s "$DATABASE_URL"')
  const login = (password: string) => postgresAccepts(postgres.port, 'app', password)
  /** In this process, but spawned under DEBUG: the debug module reads DEBUG once, when it is loaded. */
  const rotate = (extra: string[] = [], extraEnv: Record<string, string> = {}) =>
    (extraEnv.DEBUG === undefined ? runCommandLine : runCli)(
      [
        'rotate',
        'POSTGRES_PASSWORD',
        '--env',
        'dev',
        '--rotator',
        'postgres',
        '--rotator-url',
        `postgres://app@127.0.0.1:${postgres.port}/postgres`,
        '--stable',
        '1',
        '--wait',
        '60',
        ...extra,
      ],
      { env: { ...env, ...extraEnv }, cwd: stack },
    )

  beforeAll(async () => {
    ;[server, postgres] = await Promise.all([
      startVaultServer({}),
      startPostgres({ superuserPassword: randomBytes(12).toString('hex') }),
    ])
    home = createTempHome()
    stack = mkdtempSync('/tmp/vaulttpl')
    writeFileSync(join(stack, 'docker-compose.yml'), compose)
    const credentials = server.deploymentCredentials
    env = {
      ...home.env,
      DOCKER_HOST: engine!.dockerHost,
      VAULT_DOMAIN: server.url,
      VAULT_PROJECT_ID: server.projectId,
      VAULT_CLIENT_ID: credentials.clientId,
      VAULT_CLIENT_SECRET: credentials.clientSecret,
    }
    const admin = new pg.Client({ connectionString: postgres.url })
    await admin.connect()
    await admin.query(`CREATE ROLE app LOGIN PASSWORD '${old}'`)
    await admin.end()
    expect((await vault(['secrets', 'set', 'POSTGRES_PASSWORD', '--env', 'dev'], old)).exitCode).toBe(0)
    expect(
      (await vault(['secrets', 'set', 'DATABASE_URL', '--env', 'dev', '--template'], template)).exitCode,
    ).toBe(0)
    expect((await vault(['run', '--env', 'dev', '--', 'docker-compose', 'up', '-d'])).exitCode).toBe(0)
  }, 180_000)

  afterAll(async () => {
    if (stack) {
      await runCli(['run', '--env', 'dev', '--', 'docker-compose', 'down', '-t', '1'], { env, cwd: stack })
      rmSync(stack, { recursive: true, force: true })
    }
    await Promise.allSettled([server?.stop(), postgres ? stopPostgres(postgres) : undefined])
    home?.cleanup()
  })

  it('the app starts with the old password in its DATABASE_URL; who-uses lists it through the template', async () => {
    expect(databaseUrlInApp()).toBe(`postgresql://app:${old}@db:5432/app`)
    const users = await vault(['render', '--who-uses', 'POSTGRES_PASSWORD', '--env', 'dev', '--json'])
    expect(users.exitCode).toBe(0)
    expect(JSON.parse(users.stdout).references).toEqual([
      expect.objectContaining({ service: 'app', field: 'environment.DATABASE_URL', through: 'DATABASE_URL' }),
    ])
    expect(users.stdout + users.stderr).not.toContain(old)
  })

  it('a secret holding a copy of the password: exit 6 (no value printed, even with DEBUG=*), and the database, the vault and the app are untouched', async () => {
    expect(
      (await vault(['secrets', 'set', 'BACKUP_URL', '--env', 'dev'], `s3://u:${old}@backup`)).exitCode,
    ).toBe(0)
    const before = containerId('app')
    const result = await rotate([], { DEBUG: '*' })
    expect(result.exitCode).toBe(6)
    expect(result.stderr).toContain('BACKUP_URL holds a copy of the value of POSTGRES_PASSWORD')
    expect(result.stderr).toContain('vault secrets set BACKUP_URL --template')
    expect(result.stdout + result.stderr).not.toContain(old)
    expect(await stored('POSTGRES_PASSWORD')).toBe(old)
    expect(await login(old)).toBe(true)
    expect(containerId('app')).toBe(before)
    expect((await vault(['secrets', 'delete', 'BACKUP_URL', '--env', 'dev'])).exitCode).toBe(0)
  })

  it('rotate --rotator postgres recreates app, whose DATABASE_URL holds the new password the database takes', async () => {
    const before = { app: containerId('app'), other: containerId('other') }
    const result = await rotate(['--json'])
    expect(result.exitCode).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({
      rotator: 'postgres',
      outcome: 'rotated',
      vaultHolds: 'new',
      healthy: true,
    })
    expect(report.services.map((service: { service: string }) => service.service)).toEqual(['app'])
    const now = await stored('POSTGRES_PASSWORD')
    expect(now).not.toBe(old)
    expect(containerId('app')).not.toBe(before.app)
    expect(containerId('other')).toBe(before.other)
    expect(databaseUrlInApp()).toBe(`postgresql://app:${now}@db:5432/app`)
    expect(await login(now)).toBe(true)
    expect(await login(old)).toBe(false)
    expect(result.stdout + result.stderr).not.toContain(now)
    expect(result.stdout + result.stderr).not.toContain(old)
  })
})
