/**
 * A new user's first command (issue 16): the root `vault --help` and its topics, from the built CLI.
 * `server init` from a script and without --site-url run in process: test/unit/commands/server/init.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

describe('vault --help', () => {
  it('summarises each topic', async () => {
    const { stdout, exitCode } = await runCli(['--help'])
    expect(exitCode).toBe(0)
    const topics = stdout.slice(stdout.indexOf('TOPICS'), stdout.indexOf('COMMANDS'))
    expect(topics).toMatch(/^ {2}secrets +an environment's secrets: get, set, list, import, init/m)
    expect(topics).toMatch(/^ {2}server +the vault server/m)
    expect(topics).not.toMatch(/delete a secret/)
  })
})
