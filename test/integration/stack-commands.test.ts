/**
 * The stack commands of issue 16 against a real vault server (no engine needed): `secrets init` on a
 * third-party stack, `secrets import` of its .env, `doctor` on a first run without --env, `export`
 * without --env, and `rotate` naming the other stacks on this machine that use the rotated secret.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeCredentialsFile } from '../../src/client/credentials-file.js'
import { runCli } from '../helpers/cli.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'

const fixtures = fileURLToPath(new URL('../fixtures/stacks/', import.meta.url))

describe('stack commands with a real vault', () => {
  let server: TestVault
  let home: TempHome
  let work: string
  const stackDir = (name: string) => join(work, name)
  // in process; vault run and the rotate that starts docker compose (below) stay spawned
  const vault = (name: string, args: string[], input?: string) =>
    runCommandLine(args, { env: home.env, cwd: stackDir(name), input })

  beforeAll(async () => {
    server = await startVaultServer({})
    home = createTempHome()
    work = mkdtempSync('/tmp/vault-stackcmd-')
    for (const name of ['wordpress-mysql', 'immich']) {
      cpSync(join(fixtures, name), stackDir(name), { recursive: true })
      writeCredentialsFile(stackDir(name), {
        ...deploymentVariables(server),
      })
    }
  })

  afterAll(async () => {
    await server?.stop()
    home?.cleanup()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('doctor on a first run without --env passes, skipping the environment checks', async () => {
    const result = await vault('wordpress-mysql', ['doctor', '--json'])
    const checks = JSON.parse(result.stdout).checks as { id: string; status: string }[]
    const status = Object.fromEntries(checks.map((check) => [check.id, check.status]))
    expect(status).toMatchObject({
      'credentials-file': 'pass',
      credentials: 'pass',
      environment: 'skip',
      'required-variables': 'skip',
    })
    expect(checks.filter((check) => check.status === 'fail').map((check) => check.id)).toEqual(
      status['compose-client'] === 'fail' ? ['compose-client'] : [],
    )
  })

  it('export without --env says to pass --env', async () => {
    const result = await vault('wordpress-mysql', ['export'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/no environment chosen.*\nHint: pass --env/)
    expect(result.stderr).not.toContain('?environment=')
  })

  it('secrets init fills wordpress-mysql: generated MySQL passwords, nothing else asked', async () => {
    rmSync(join(stackDir('wordpress-mysql'), '.env'))
    const result = await vault('wordpress-mysql', ['secrets', 'init', '--env', 'staging', '--json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).created.sort()).toEqual(['MYSQL_PASSWORD', 'MYSQL_ROOT_PASSWORD'])
    const value = (await vault('wordpress-mysql', ['secrets', 'get', 'MYSQL_PASSWORD', '--env', 'staging']))
      .stdout
    expect(value).toMatch(/^[A-Za-z0-9]{32}$/)
  })

  it('secrets import: --dry-run writes nothing, then imports with users, never overwrites without --force', async () => {
    const dry = await vault('immich', ['secrets', 'import', '.env', '--env', 'dev', '--dry-run'])
    expect(dry.exitCode, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(
      /^DB_PASSWORD +would be created +database,immich-machine-learning,immich-server/m,
    )
    expect((await vault('immich', ['secrets', 'list', '--env', 'dev', '--json'])).stdout).not.toContain(
      'DB_PASSWORD',
    )
    expect(
      (await vault('immich', ['secrets', 'set', 'DB_USERNAME', '--env', 'dev'], 'someone')).exitCode,
    ).toBe(0)
    const real = await vault('immich', ['secrets', 'import', '.env', '--env', 'dev', '--json'])
    const byName = Object.fromEntries(
      JSON.parse(real.stdout).secrets.map((entry: { name: string; action: string }) => [
        entry.name,
        entry.action,
      ]),
    )
    expect(byName).toMatchObject({ DB_PASSWORD: 'created', DB_USERNAME: 'kept', UPLOAD_LOCATION: 'created' })
    expect((await vault('immich', ['secrets', 'get', 'DB_USERNAME', '--env', 'dev'])).stdout).toBe('someone')
    expect(readFileSync(join(stackDir('immich'), '.env'), 'utf8')).toContain('DB_PASSWORD=postgres')
  })

  it('rotate names the other stacks on this machine that use the secret', async () => {
    const other = stackDir('immich-copy')
    cpSync(stackDir('immich'), other, { recursive: true })
    writeFileSync(join(other, 'note'), 'a second checkout of the same stack\n')
    expect(
      (await runCli(['run', '--env', 'dev', '--', 'true'], { env: home.env, cwd: other })).exitCode,
    ).toBe(0)
    const result = await vault('immich', ['rotate', 'DB_PASSWORD', '--env', 'dev', '--no-restart', '--json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).otherStacks).toEqual([
      { stackDir: other, services: ['database', 'immich-machine-learning', 'immich-server'] },
    ])
    expect(result.stderr).toMatch(
      new RegExp(
        `the stack in ${other} also uses DB_PASSWORD \\(database, immich-machine-learning, immich-server\\)`,
      ),
    )
  })

  it.skipIf(!existsSync('/usr/bin/docker-compose'))(
    'a compose error is shown whole, and the rotation is rolled back (docker-compose 1.29 refuses a top-level name)',
    async () => {
      const dir = stackDir('refused')
      cpSync(stackDir('wordpress-mysql'), dir, { recursive: true })
      writeFileSync(
        join(dir, 'compose.yaml'),
        'name: refused\nservices:\n  app:\n    image: x\n    environment:\n      P: ${REFUSED_PASSWORD}\n',
      )
      const env = { ...home.env, DOCKER_HOST: 'unix:///nonexistent.sock' }
      const run = (args: string[], input?: string) => runCommandLine(args, { env, cwd: dir, input })
      expect((await run(['secrets', 'set', 'REFUSED_PASSWORD', '--env', 'prod'], 'before')).exitCode).toBe(0)
      const result = await run(['rotate', 'REFUSED_PASSWORD', '--env', 'prod', '--wait', '5'])
      expect(result.exitCode).toBe(11)
      expect(result.stderr).toMatch(/compose up failed:\n/)
      expect(result.stderr).toMatch(/You might be seeing this error because/)
      expect(result.stderr).toMatch(/the vault holds version 3 \(the value of version 1\)/)
      expect((await run(['secrets', 'get', 'REFUSED_PASSWORD', '--env', 'prod'])).stdout).toBe('before')
    },
  )
})
