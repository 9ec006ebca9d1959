/**
 * Issue 35 item 1 against the real server over HTTP: DATABASE_URL stored as a template naming
 * POSTGRES_PASSWORD reaches `vault export` and `vault run -- env` resolved, follows a new
 * POSTGRES_PASSWORD at once, shows as a template in `secrets list`, and a template naming a missing
 * secret or itself is refused at `secrets set` (exit 2, nothing stored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'

let server: TestVault
let home: TempHome
let env: Record<string, string>
const template = 'postgresql://app:${POSTGRES_PASSWORD}@db:5432/app?x=$${literal}'
// vault run starts a child: the built CLI; every other command runs in process
const cli = (args: string[], input?: string) =>
  args[0] === 'run' ? runCli(args, { env, input }) : runCommandLine(args, { env, input })

beforeAll(async () => {
  server = await startVaultServer({})
  home = createTempHome()
  env = {
    ...home.env,
    ...deploymentVariables(server),
  }
  expect((await cli(['secrets', 'set', 'POSTGRES_PASSWORD', '--env', 'dev'], 'pw-one')).exitCode).toBe(0)
  const set = await cli(['secrets', 'set', 'DATABASE_URL', '--env', 'dev', '--template'], template)
  expect(set.exitCode, set.stderr).toBe(0)
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
})

describe('secret references', () => {
  it('export and run -- env give the resolved URL; a new password changes it at once', async () => {
    const url = (password: string) => `postgresql://app:${password}@db:5432/app?x=\${literal}`
    const exported = await cli(['export', '--env', 'dev', '--format', 'json'])
    expect(exported.exitCode, exported.stderr).toBe(0)
    expect(JSON.parse(exported.stdout)).toEqual({ DATABASE_URL: url('pw-one'), POSTGRES_PASSWORD: 'pw-one' })
    const run = await cli(['run', '--env', 'dev', '--no-mask', '--', 'env'])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain(`DATABASE_URL=${url('pw-one')}\n`)

    expect((await cli(['secrets', 'set', 'POSTGRES_PASSWORD', '--env', 'dev'], 'pw-two')).exitCode).toBe(0)
    const again = await cli(['run', '--env', 'dev', '--no-mask', '--', 'env'])
    expect(again.stdout).toContain(`DATABASE_URL=${url('pw-two')}\n`)
    expect(again.stdout).not.toContain('pw-one')
  })

  it('secrets list marks the template; the server keeps it as written', async () => {
    const listed = await cli(['secrets', 'list', '--env', 'dev', '--json'])
    const secrets = JSON.parse(listed.stdout).secrets as { name: string; template?: boolean }[]
    expect(secrets.find((secret) => secret.name === 'DATABASE_URL')?.template).toBe(true)
    expect(secrets.find((secret) => secret.name === 'POSTGRES_PASSWORD')?.template).toBeUndefined()
    const table = await cli(['secrets', 'list', '--env', 'dev'])
    expect(table.stdout).toMatch(/^DATABASE_URL\s+\d+\s+\S+\s+template$/m)
    const raw = await cli(['secrets', 'get', 'DATABASE_URL', '--env', 'dev'])
    expect(raw.stdout.trim()).toBe(template)
  })

  it.each([
    ['a missing reference', 'MISSING_URL', 'x${NOPE}', 'MISSING_URL -> NOPE: NOPE is not a secret'],
    [
      'a cycle',
      'POSTGRES_PASSWORD',
      'a${DATABASE_URL}',
      'cycle: POSTGRES_PASSWORD -> DATABASE_URL -> POSTGRES_PASSWORD',
    ],
    ['a malformed reference', 'BAD_URL', 'x${', 'malformed reference'],
  ])('refuses %s at set (exit 2) and stores nothing', async (_what, name, value, message) => {
    const before = await cli(['export', '--env', 'dev', '--format', 'json'])
    const set = await cli(['secrets', 'set', name, '--env', 'dev', '--template'], value)
    expect(set.exitCode).toBe(2)
    expect(set.stderr).toContain(message)
    const after = await cli(['export', '--env', 'dev', '--format', 'json'])
    expect(after.stdout).toBe(before.stdout)
  })

  it('a template set by another client with a cycle stops readers with exit 8, naming the chain', async () => {
    // the CLI checks at set; a raw API write does not: every reader refuses the environment then
    const { createSession } = await import('../../src/client/session.js')
    const { VaultApi } = await import('../../src/client/vault-api.js')
    const api = new VaultApi(
      createSession(
        { domain: server.url, projectId: server.projectId, ...server.deploymentCredentials, insecure: false },
        { VAULT_KEYCHAIN: 'off', XDG_STATE_HOME: home.dir },
      ),
    )
    await api.putSecret('LOOP_A', '${LOOP_B}', 'dev', { template: true })
    await api.putSecret('LOOP_B', 'canary-${LOOP_A}', 'dev', { template: true })
    for (const args of [
      ['export', '--env', 'dev'],
      ['run', '--env', 'dev', '--', 'true'],
    ]) {
      const result = await cli(args)
      expect(result.exitCode).toBe(8)
      expect(result.stderr).toContain('LOOP_A -> LOOP_B -> LOOP_A')
      expect(result.stderr).not.toContain('canary')
    }
    await api.deleteSecret('LOOP_A', 'dev')
    await api.deleteSecret('LOOP_B', 'dev')
  })
})
