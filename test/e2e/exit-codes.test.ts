/**
 * One exit-code vocabulary (issue 21): 10 means "the check ran and found something" for every checking
 * command, 1 stays for bugs, and a --json failure is the `{ error }` object on stdout (through oclif's
 * toErrorJson/logJson hooks) with nothing on stderr. The README table lists exactly `ExitCode`.
 * The built CLI against a real vault server on 127.0.0.1 (SQLite in a temporary directory).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExitCode } from '../../src/errors.js'
import { runCli } from '../helpers/cli.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import {
  deploymentApi,
  startVaultServer,
  type TestVault,
  deploymentVariables,
} from '../helpers/vault-server.js'

let server: TestVault
let home: TempHome
let env: Record<string, string>
const work = mkdtempSync(join(tmpdir(), 'vault-exit-codes-'))

beforeAll(async () => {
  server = await startVaultServer({})
  home = createTempHome()
  env = {
    ...home.env,
    ...deploymentVariables(server),
  }
  await deploymentApi(server, join(work, 'seed')).putSecret('DATABASE_PASSWORD', 'db-pw-1', 'dev')
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

describe('exit 10: the check ran and found something', () => {
  it('scan exits 10 when a value is found, 0 when clean, 2 without a source; the value is never printed', async () => {
    const dir = mkdtempSync(join(work, 'scan-'))
    writeFileSync(join(dir, 'config.env'), 'PASSWORD=db-pw-1-long\n')
    await deploymentApi(server, join(work, 'seed-scan')).putSecret('SCAN_PASSWORD', 'db-pw-1-long', 'dev')
    const found = await runCli(['scan', '--env', 'dev', '--path', dir], { env, cwd: work })
    expect(found.exitCode).toBe(ExitCode.findings)
    expect(found.stdout).toContain(`SCAN_PASSWORD v1 (current): ${join(dir, 'config.env')}:1`)
    expect(found.stdout + found.stderr).not.toContain('db-pw-1-long')
    writeFileSync(join(dir, 'config.env'), 'PASSWORD=elsewhere\n')
    expect((await runCli(['scan', '--env', 'dev', '--path', dir], { env, cwd: work })).exitCode).toBe(0)
    const usage = await runCli(['scan', '--env', 'dev', '--json'], { env, cwd: work })
    expect(usage.exitCode).toBe(ExitCode.usage)
    expect(JSON.parse(usage.stdout)).toMatchObject({ error: { code: 'ERR_USAGE' } })
  })

  it('rotate --due exits 10 when a secret is due, 0 when none is', async () => {
    const due = await runCli(['rotate', '--due', '--env', 'dev', '--max-age', 'DATABASE_*=0'], {
      env,
      cwd: work,
    })
    expect(due.exitCode, due.stderr).toBe(ExitCode.findings)
    expect(due.stdout).toMatch(/^DUE\s+DATABASE_PASSWORD/m)
    const json = await runCli(['rotate', '--due', '--env', 'dev', '--max-age', 'DATABASE_*=0', '--json'], {
      env,
      cwd: work,
    })
    expect(json.exitCode).toBe(ExitCode.findings)
    expect(JSON.parse(json.stdout)).toMatchObject({ due: 1 })
    const fine = await runCli(['rotate', '--due', '--env', 'dev'], { env, cwd: work })
    expect(fine.exitCode, fine.stderr).toBe(0)
  })

  it.each([
    [['DELETE', '/v1.41/containers/web'], ExitCode.findings, 'deny'],
    [['GET', '/v1.41/containers/json'], 0, 'allow'],
  ])('proxy check %j exits %i', async (args, exitCode, decision) => {
    const result = await runCli(['proxy', 'check', ...args])
    expect(result.exitCode).toBe(exitCode)
    expect(result.stdout.startsWith(decision)).toBe(true)
  })

  it('render --check exits 10 on an error, 0 without one', async () => {
    const dir = mkdtempSync(join(work, 'stack-'))
    writeFileSync(
      join(dir, 'compose.yaml'),
      'services:\n  web:\n    image: x\n    environment:\n      P: ${P:?}\n',
    )
    expect((await runCli(['render', '--check'], { cwd: dir })).exitCode).toBe(ExitCode.findings)
    writeFileSync(join(dir, 'compose.yaml'), 'services:\n  web:\n    image: x\n')
    expect((await runCli(['render', '--check'], { cwd: dir })).exitCode).toBe(0)
  })

  it('doctor exits 10 when a check fails (the vault is unreachable)', async () => {
    const unreachable = { ...env, VAULT_DOMAIN: 'http://127.0.0.1:1' }
    const result = await runCli(['doctor', '--stack-dir', work], { env: unreachable, cwd: work })
    expect(result.exitCode).toBe(ExitCode.findings)
    expect(result.stdout).toMatch(/^FAIL {2}/m)
  })
})

describe('--json failures go through the hooks', () => {
  it.each([
    [['secrets', 'get', 'NO_SUCH', '--env', 'dev', '--json'], ExitCode.notFound, 'ERR_NOT_FOUND'],
    [['pwgen', '--length', '4', '--json'], ExitCode.usage, 'ERR_USAGE'],
    [['secrets', 'list', '--no-such-flag', '--json'], ExitCode.usage, 'ERR_USAGE'],
  ])('vault %j: { error } on stdout, exit %i, nothing on stderr', async (args, exitCode, code) => {
    const result = await runCli(args, { env, cwd: work })
    expect(result.exitCode).toBe(exitCode)
    expect(result.stderr).toBe('')
    const parsed = JSON.parse(result.stdout) as { error: Record<string, unknown> }
    expect(parsed.error).toMatchObject({ code, exitCode })
    expect(Object.keys(parsed.error).sort()).toEqual(
      ['code', 'exitCode', 'message', 'name', ...('hint' in parsed.error ? ['hint'] : [])].sort(),
    )
  })
})

describe('the README exit-code table', () => {
  it('lists exactly the codes of ExitCode (and 127), each once', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const table = readme.slice(readme.indexOf('| code | meaning |'))
    const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2)
    const codes = rows.map((row) => Number(row.split('|')[1]!.trim()))
    expect(codes).toEqual([...Object.values(ExitCode), 127])
    expect(rows.find((row) => row.startsWith('| 10 |'))).toMatch(/found something/)
    expect(rows.find((row) => row.startsWith('| 1 |'))).toMatch(/a bug/)
  })
})
