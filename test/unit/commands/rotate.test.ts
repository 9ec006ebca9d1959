/** `vault rotate` in process: its usage errors (moved from the spawned test/e2e/cli-errors.test.ts). */
import { afterAll, describe, expect, it } from 'vitest'
import Rotate from '../../../src/commands/rotate.js'
import { ExitCode } from '../../../src/errors.js'
import { runCommand } from '../../helpers/run-command.js'
import { createTempHome } from '../../helpers/temp-home.js'

const home = createTempHome()
afterAll(() => home.cleanup())

describe('vault rotate usage errors (exit 2)', () => {
  it.each([[['--env', 'dev'], /name the secret to rotate, or pass --due/]])('%j', async (argv, message) => {
    const run = await runCommand(Rotate, argv, {
      env: { ...home.env, VAULT_DOMAIN: 'http://127.0.0.1:1' },
      cwd: home.dir,
    })
    expect(run.exitCode).toBe(ExitCode.usage)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(message)
    const json = await runCommand(Rotate, [...argv, '--json'], { env: home.env, cwd: home.dir })
    expect(json.exitCode).toBe(ExitCode.usage)
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'ERR_USAGE' } })
  })
})
