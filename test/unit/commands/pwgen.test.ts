/** `vault pwgen` in process: flags, usage errors and the --json shape (test/schemas/pwgen.json). */
import { describe, expect, it } from 'vitest'
import Pwgen from '../../../src/commands/pwgen.js'
import { ExitCode } from '../../../src/errors.js'
import { jsonShapeProblems } from '../../helpers/json-shape.js'
import { runCommand } from '../../helpers/run-command.js'

describe('vault pwgen', () => {
  it('prints one 32-character alphanumeric password by default', async () => {
    const run = await runCommand(Pwgen, [])
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toMatch(/^[A-Za-z0-9]{32}\n$/)
    expect(run.stderr).toBe('')
  })

  it('--count 3 --json prints the documented shape', async () => {
    const run = await runCommand(Pwgen, ['--count', '3', '--json'])
    const printed = JSON.parse(run.stdout)
    expect(jsonShapeProblems('pwgen', printed)).toEqual([])
    expect(printed.values).toHaveLength(3)
    expect(run.result).toEqual(printed)
  })

  it('--bytes 16 --encoding base64url gives 22 characters', async () => {
    const run = await runCommand(Pwgen, ['--bytes', '16', '--encoding', 'base64url'])
    expect(run.stdout.trim()).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })

  it.each([
    [['--length', '8'], /too weak/],
    [['--bytes', '8', '--length', '40'], /--bytes=8 cannot also be provided when using --length/],
    [['--encoding', 'hex'], /--bytes/],
    [['--count', '0'], /greater than or equal to 1/],
    [['--charset', 'emoji'], /Expected --charset=emoji to be one of/],
  ])('%j is a usage error (exit 2) with a --json error of the documented shape', async (argv, message) => {
    const human = await runCommand(Pwgen, argv)
    expect(human.exitCode).toBe(ExitCode.usage)
    expect(human.stderr).toMatch(message)
    expect(human.stdout).toBe('')
    const json = await runCommand(Pwgen, [...argv, '--json'])
    expect(json.exitCode).toBe(ExitCode.usage)
    expect(jsonShapeProblems('error', JSON.parse(json.stdout))).toEqual([])
  })

  it('--length 8 --allow-weak is allowed', async () => {
    const run = await runCommand(Pwgen, ['--length', '8', '--allow-weak'])
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toMatch(/^[A-Za-z0-9]{8}\n$/)
  })

  it('prints 48 characters with --length 48', async () => {
    const run = await runCommand(Pwgen, ['--length', '48'])
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toMatch(/^[A-Za-z0-9]{48}\n$/)
  })

  it('prints 64 hex characters with --bytes 32 --encoding hex', async () => {
    const run = await runCommand(Pwgen, ['--bytes', '32', '--encoding', 'hex'])
    expect(run.stdout).toMatch(/^[0-9a-f]{64}\n$/)
  })

  it('refuses --length 8 with exit 2 and one line on stderr', async () => {
    const run = await runCommand(Pwgen, ['--length', '8'])
    expect(run.exitCode).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr.trim().split('\n')).toEqual([
      'Error: a length of 8 is too weak: use at least 16, or pass --allow-weak',
    ])
  })

  it('--count 3 --charset hex --json: three 32-character hex values', async () => {
    const run = await runCommand(Pwgen, ['--count', '3', '--charset', 'hex', '--json'])
    const parsed = JSON.parse(run.stdout) as { values: string[] }
    expect(parsed.values).toHaveLength(3)
    for (const value of parsed.values) expect(value).toMatch(/^[0-9a-f]{32}$/)
  })

  it('a --json usage error is ERR_USAGE with exit 2', async () => {
    const run = await runCommand(Pwgen, ['--length', '4', '--json'])
    expect(run.exitCode).toBe(2)
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'ERR_USAGE', exitCode: 2 } })
  })
})
