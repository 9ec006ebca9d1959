/**
 * The frame of the built CLI, which needs the real binary: the root --help, --version and an unknown
 * command (exit 127). The commands' own flags are tested in process (test/unit/commands/).
 */
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

describe('vault CLI frame', () => {
  it('lists commands with summaries in --help', async () => {
    const result = await runCli(['--help'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/pwgen\s+generate random passwords/)
  })

  it('prints a version', async () => {
    const result = await runCli(['--version'])
    expect(result.stdout).toMatch(/^vault\/\d+\.\d+\.\d+/)
  })

  it('suggests nothing silently for an unknown command: exit 127 and a message on stderr', async () => {
    const result = await runCli(['pwgne'])
    expect(result.exitCode).toBe(127)
    expect(result.stderr).toContain('pwgne is not a vault command')
    expect(result.stdout).toBe('')
  })
})
