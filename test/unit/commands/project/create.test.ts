/**
 * `vault project create` in process beside a real server process (SQLite, over HTTP), moved
 * from the spawned test/integration/server-admin.test.ts: a second stack's project, identity and
 * working credentials file (mode 600, the secret printed nowhere), --json with and without
 * --write-env, refused names that create nothing, and `vault server init` refusing a different
 * password for the existing admin (it points at project create). The same under DEBUG=* stays spawned
 * there (the debug output is set up when the process starts). The server runs in its own process, as
 * on a host: in this one, its webhook worker's SQLite transaction would wait out the busy timeout
 * (10 s, blocking the thread) behind a command's transaction that awaits a password hash.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import AuditList from '../../../../src/commands/audit/list.js'
import EnvList from '../../../../src/commands/env/list.js'
import ProjectCreate from '../../../../src/commands/project/create.js'
import SecretsGet from '../../../../src/commands/secrets/get.js'
import SecretsSet from '../../../../src/commands/secrets/set.js'
import ServerInit from '../../../../src/commands/server/init.js'
import { runCommand } from '../../../helpers/run-command.js'
import { createTempHome } from '../../../helpers/temp-home.js'
import { spawnVaultProcess, type VaultProcess } from '../../../helpers/vault-server.js'

// a server process started in the hook: seconds on a loaded machine
const serverStart = 60_000

describe('vault project create: a second stack, and server init refusing a different admin password', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-project-'))
  const encryptionKey = randomBytes(32).toString('hex')
  const env = { DB_URL: `sqlite://${join(dir, 'vault.db')}`, ENCRYPTION_KEY: encryptionKey }
  const password = 'the first admin password'
  let vault: VaultProcess
  const secretIn = (stackDir: string) =>
    /^VAULT_CLIENT_SECRET=(vs_\S+)$/m.exec(readFileSync(join(stackDir, '.vault', 'credentials'), 'utf8'))?.[1]
  const init = (project: string, input: string, extra: string[] = []) =>
    runCommand(
      ServerInit,
      ['--admin-user', 'admin', '--admin-password-stdin', '--project', project, ...extra],
      { env, input },
    )

  beforeAll(async () => {
    vault = await spawnVaultProcess({
      encryptionKey,
      jwtSecret: randomBytes(32).toString('hex'),
      dbUrl: env.DB_URL,
    })
  }, serverStart)
  afterAll(async () => {
    await vault?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('server init --write-env stores the client secret and prints it nowhere', async () => {
    const stack = join(dir, 'first')
    const result = await init('first', password, ['--site-url', vault.url, '--write-env', stack])
    expect(result.exitCode).toBe(0)
    const secret = secretIn(stack)
    expect(secret).toMatch(/^vs_/)
    expect(result.stdout + result.stderr).not.toContain(secret)
    expect(result.stderr).toContain(`its client secret is in ${join(stack, '.vault', 'credentials')}`)
  })

  it('refuses a different password for the existing admin (exit 6) and creates nothing', async () => {
    const stack = join(dir, 'refused')
    const result = await init('second', 'a different admin password', [
      '--site-url',
      vault.url,
      '--write-env',
      stack,
    ])
    expect(result.exitCode).toBe(6)
    expect(result.stderr).toMatch(/the admin account 'admin' already exists with a different password/)
    expect(result.stderr).toContain('vault project create NAME')
    expect(result.stdout + result.stderr).not.toContain('a different admin password')
    expect(existsSync(stack)).toBe(false)
    const projects = await runCommand(EnvList, ['-p', 'second'], { env })
    expect(projects.exitCode).toBe(5)
    const same = await init('third', password, ['--environments', 'prod', '--json'])
    expect(same.exitCode).toBe(0)
    expect(JSON.parse(same.stdout)).toMatchObject({
      projectName: 'third',
      clientSecret: expect.stringMatching(/^vs_/),
    })
  })

  it('makes the project, its identity and a working credentials file', async () => {
    const stack = join(dir, 'second')
    const created = await runCommand(
      ProjectCreate,
      ['second', '--site-url', vault.url, '--write-env', stack],
      { env },
    )
    expect(created.exitCode).toBe(0)
    const credentialsFile = join(stack, '.vault', 'credentials')
    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600)
    const secret = secretIn(stack)
    expect(secret).toMatch(/^vs_/)
    expect(created.stdout + created.stderr).not.toContain(secret)
    expect(readFileSync(join(stack, '.gitignore'), 'utf8').split('\n')).toContain('.vault/')
    const environments = await runCommand(EnvList, ['-p', 'second'], { env })
    expect(environments.stdout.split('\n').filter(Boolean)).toEqual(
      expect.arrayContaining(['dev', 'staging', 'prod']),
    )
    const canary = `canary-${randomBytes(8).toString('hex')}`
    const home = createTempHome()
    const set = await runCommand(SecretsSet, ['APP_TOKEN', '--env', 'staging'], {
      cwd: stack,
      env: home.env,
      input: canary,
    })
    expect(set.exitCode).toBe(0)
    const got = await runCommand(SecretsGet, ['APP_TOKEN', '--env', 'staging'], {
      cwd: stack,
      env: home.env,
    })
    expect(got.stdout.trim()).toBe(canary)
    const audit = await runCommand(AuditList, ['--json'], { env })
    expect(JSON.parse(audit.stdout).events).toContainEqual(
      expect.objectContaining({ action: 'project.create', actor: 'admin:cli', target: 'second' }),
    )
    const again = await runCommand(ProjectCreate, ['second', '--json'], { env })
    expect(again.exitCode).toBe(6)
  })

  it('--json without --write-env returns the client secret once; with it, never', async () => {
    const plain = await runCommand(ProjectCreate, ['fourth', '--environments', 'dev,prod', '--json'], {
      env,
    })
    expect(plain.exitCode).toBe(0)
    expect(JSON.parse(plain.stdout)).toMatchObject({
      projectName: 'fourth',
      identityName: 'fourth-deployment',
      environments: ['dev', 'prod'],
      clientSecret: expect.stringMatching(/^vs_/),
    })
    const stack = join(dir, 'fifth')
    const written = await runCommand(
      ProjectCreate,
      ['fifth', '--site-url', vault.url, '--write-env', stack, '--json'],
      { env },
    )
    expect(written.exitCode).toBe(0)
    expect(JSON.parse(written.stdout)).not.toHaveProperty('clientSecret')
    expect(written.stdout + written.stderr).not.toContain(secretIn(stack))
    expect(written.stdout + written.stderr).not.toContain(encryptionKey)
  })

  it.each([
    ['--write-env without --site-url', ['sixth', '--write-env', join(dir, 'sixth')], 2],
    ['no environment', ['seventh', '--environments', ' , '], 2],
    ['a path as the name', ['../etc'], 2],
    ['a shell word as the name', ['$(id)'], 2],
    ['__proto__ (a name must start with a letter or digit)', ['__proto__'], 2],
  ])('refuses %s and creates nothing', async (_case, args, exitCode) => {
    const result = await runCommand(ProjectCreate, [...args], { env })
    expect(result.exitCode).toBe(exitCode)
    expect(existsSync(join(dir, 'sixth'))).toBe(false)
    const listed = await runCommand(EnvList, ['-p', args[0]!], { env })
    expect(listed.exitCode).toBe(5)
  })

  it('a project named constructor is a project like any other', async () => {
    const result = await runCommand(ProjectCreate, ['constructor', '--environments', 'dev', '--json'], {
      env,
    })
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ projectName: 'constructor', environments: ['dev'] })
    expect((await runCommand(EnvList, ['-p', 'constructor'], { env })).stdout.trim()).toBe('dev')
  })
})
