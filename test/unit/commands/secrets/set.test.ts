/**
 * `vault secrets set`, get, history, rollback, delete and list in process, against a real vault server
 * over HTTP (moved from the spawned test/e2e/cli-errors.test.ts and test/integration/cli-vault.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import SecretsDelete from '../../../../src/commands/secrets/delete.js'
import SecretsGet from '../../../../src/commands/secrets/get.js'
import SecretsHistory from '../../../../src/commands/secrets/history.js'
import SecretsList from '../../../../src/commands/secrets/list.js'
import SecretsRollback from '../../../../src/commands/secrets/rollback.js'
import SecretsSet from '../../../../src/commands/secrets/set.js'
import { ExitCode } from '../../../../src/errors.js'
import { runCommand } from '../../../helpers/run-command.js'
import { createTempHome } from '../../../helpers/temp-home.js'
import { startCliVault, type SeededVault } from '../../../helpers/seeded-vault.js'

// a real server and a database initialised in the hook: seconds on a loaded machine
const serverStart = 60_000

const home = createTempHome()
afterAll(() => home.cleanup())

describe('vault secrets set', () => {
  it('--value warns that process listings show it, never echoing the value', async () => {
    const run = await runCommand(SecretsSet, ['A', '--value', 'CANARY-on-argv'], {
      env: home.env,
      cwd: home.dir,
    })
    expect(run.stderr).toMatch(/--value puts the secret on the command line/)
    expect(run.stdout + run.stderr).not.toContain('CANARY-on-argv')
    expect(run.exitCode).toBe(ExitCode.notConfigured)
  })
})

describe('vault secrets against a vault', () => {
  let vault: SeededVault
  let env: Record<string, string>
  beforeAll(async () => {
    vault = await startCliVault()
    ;({ env } = vault)
  }, serverStart)
  afterAll(async () => vault?.stop())

  it('set reads stdin, get prints the value alone, history lists versions, rollback restores', async () => {
    expect(
      (await runCommand(SecretsSet, ['ROLL_ME', '--env', 'dev'], { env, input: 'first\n' })).exitCode,
    ).toBe(0)
    expect(
      (await runCommand(SecretsSet, ['ROLL_ME', '--env', 'dev'], { env, input: 'second' })).exitCode,
    ).toBe(0)
    expect((await runCommand(SecretsGet, ['ROLL_ME', '--env', 'dev'], { env })).stdout).toBe('second')
    const history = JSON.parse(
      (await runCommand(SecretsHistory, ['ROLL_ME', '--env', 'dev', '--json'], { env })).stdout,
    )
    expect(history.versions.map((entry: { version: number }) => entry.version)).toEqual([2, 1])
    const last = await runCommand(SecretsHistory, ['ROLL_ME', '--env', 'dev', '--last', '1'], { env })
    expect(last.stdout.trim().split('\n')).toHaveLength(2)
    expect(last.stdout).toMatch(/^2 +\S+ +\S+ \(identity:[^)]+\)/m)
    expect(history.versions[0].actorName).toBe('demo-deployment')
    expect(history.versions[0].actor).toBe(`identity:${history.versions[0].actor.slice(9)}`)
    expect(last.stdout).toContain(history.versions[0].actorName)
    expect((await runCommand(SecretsRollback, ['ROLL_ME', '1', '--env', 'dev'], { env })).exitCode).toBe(0)
    expect((await runCommand(SecretsGet, ['ROLL_ME', '--env', 'dev'], { env })).stdout).toBe('first')
  })

  it('set --if-version with a stale version exits 6 and writes nothing', async () => {
    const result = await runCommand(SecretsSet, ['ROLL_ME', '--env', 'dev', '--if-version', '1'], {
      env,
      input: 'x',
    })
    expect(result.exitCode).toBe(6)
    expect((await runCommand(SecretsGet, ['ROLL_ME', '--env', 'dev'], { env })).stdout).toBe('first')
  })

  it('get of a missing secret exits 5; delete removes a secret', async () => {
    expect((await runCommand(SecretsGet, ['NO_SUCH_SECRET', '--env', 'dev'], { env })).exitCode).toBe(5)
    expect((await runCommand(SecretsDelete, ['ROLL_ME', '--env', 'dev'], { env })).exitCode).toBe(0)
    expect((await runCommand(SecretsGet, ['ROLL_ME', '--env', 'dev'], { env })).exitCode).toBe(5)
  })

  it('an environment that does not exist is an error, not a silent default', async () => {
    const result = await runCommand(SecretsList, ['--env', 'nope'], { env })
    expect([2, 5]).toContain(result.exitCode)
  })
})
