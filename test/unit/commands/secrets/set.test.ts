/** `vault secrets set` in process: the --value warning (moved from the spawned test/e2e/cli-errors.test.ts). */
import { afterAll, describe, expect, it } from 'vitest'
import SecretsSet from '../../../../src/commands/secrets/set.js'
import { ExitCode } from '../../../../src/errors.js'
import { runCommand } from '../../../helpers/run-command.js'
import { createTempHome } from '../../../helpers/temp-home.js'

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
