/**
 * `vault run` in process: its usage errors, before any vault is asked or any child started (moved
 * from the spawned test/e2e/cli-errors.test.ts and exit-codes.test.ts). The child's exit code,
 * signals and the environment it receives stay spawned (test/integration/cli-vault.test.ts,
 * test/e2e/run-host-variables.test.ts).
 */
import { afterAll, describe, expect, it } from 'vitest'
import Run from '../../../src/commands/run.js'
import { ExitCode } from '../../../src/errors.js'
import { runCommand } from '../../helpers/run-command.js'
import { createTempHome } from '../../helpers/temp-home.js'

const home = createTempHome()
afterAll(() => home.cleanup())
const env = {
  ...home.env,
  VAULT_CLIENT_ID: 'cid',
  VAULT_CLIENT_SECRET: 'CANARY-run-secret',
  VAULT_DOMAIN: 'http://127.0.0.1:1',
}

describe('vault run usage errors (exit 2)', () => {
  it.each([
    [['--env', 'dev'], /no command given/],
    [
      ['--env', 'dev', '--fallback', '--fallback-max-age', 'soon', '--', 'true'],
      /--fallback-max-age must be a duration/,
    ],
    [['--env', 'dev', '--bogus', '--', 'true'], /Nonexistent flag: --bogus/],
  ])('%j', async (argv, message) => {
    const run = await runCommand(Run, argv, { env, cwd: home.dir })
    expect(run.exitCode).toBe(ExitCode.usage)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(message)
    expect(run.stderr).not.toContain('CANARY-run-secret')
  })
})
