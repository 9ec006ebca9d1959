/** `vault --help` shows each topic's own summary, not its first subcommand's (issue 16). */
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

describe('vault server init from a script', () => {
  it('names the flags to pass when a value is missing', async () => {
    const result = await runCli(['server', 'init', '--db-url', 'sqlite:///nonexistent/vault.db'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/admin user name is required \(--admin-user\)/)
    expect(result.stderr).toMatch(
      /Hint: from a script: .*--admin-password-stdin --admin-user admin --project NAME --site-url URL/,
    )
  })
})
