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

describe('vault pwgen', () => {
  it('prints 48 characters with --length 48', async () => {
    const result = await runCli(['pwgen', '--length', '48'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/^[A-Za-z0-9]{48}\n$/)
  })

  it('prints 64 hex characters with --bytes 32 --encoding hex', async () => {
    const result = await runCli(['pwgen', '--bytes', '32', '--encoding', 'hex'])
    expect(result.stdout).toMatch(/^[0-9a-f]{64}\n$/)
  })

  it('refuses --length 8 with exit 2 and one line on stderr', async () => {
    const result = await runCli(['pwgen', '--length', '8'])
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr.trim().split('\n')).toEqual([
      'Error: a length of 8 is too weak: use at least 16, or pass --allow-weak',
    ])
  })

  it('accepts --length 8 with --allow-weak', async () => {
    const result = await runCli(['pwgen', '--length', '8', '--allow-weak'])
    expect(result.stdout).toMatch(/^[A-Za-z0-9]{8}\n$/)
  })

  it('prints the result object with --json', async () => {
    const result = await runCli(['pwgen', '--count', '3', '--charset', 'hex', '--json'])
    const parsed = JSON.parse(result.stdout) as { values: string[] }
    expect(parsed.values).toHaveLength(3)
    for (const value of parsed.values) expect(value).toMatch(/^[0-9a-f]{32}$/)
  })

  it('prints a JSON error with --json and exits 2', async () => {
    const result = await runCli(['pwgen', '--length', '4', '--json'])
    expect(result.exitCode).toBe(2)
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'ERR_USAGE', exitCode: 2 } })
  })

  it('refuses --bytes together with --length', async () => {
    const result = await runCli(['pwgen', '--bytes', '16', '--length', '40'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('--length')
  })
})
