/**
 * `vault export` in process, with no vault server: the usage and set-up errors a user meets first
 * (moved from the spawned test/e2e/cli-errors.test.ts and exit-codes.test.ts). Exit code, one line
 * and a hint on stderr, nothing on stdout, the client secret never shown.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseEnvFile } from '../../../src/compose/env-file.js'
import Export from '../../../src/commands/export.js'
import { ExitCode } from '../../../src/errors.js'
import { runCommand } from '../../helpers/run-command.js'
import { createTempHome } from '../../helpers/temp-home.js'
import { hostileValues, startCliVault, type SeededVault } from '../../helpers/seeded-vault.js'

// a real server and a database initialised in the hook: seconds on a loaded machine
const serverStart = 60_000

const canary = 'CANARY-export-secret-5b0e'
const home = createTempHome()
afterAll(() => home.cleanup())
const base = { ...home.env, VAULT_CLIENT_ID: 'cid', VAULT_CLIENT_SECRET: canary }

describe('vault export without a vault', () => {
  it('exits 3 with a hint when no domain is configured', async () => {
    const run = await runCommand(Export, ['--env', 'dev'], { env: home.env, cwd: home.dir })
    expect(run.exitCode).toBe(ExitCode.notConfigured)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(
      "Error: no vault domain is configured\nHint: set VAULT_DOMAIN (flag --domain, the environment or the stack's .vault/credentials)\n",
    )
  })

  it('exits 2 for plain http:// to a host that is not loopback, without sending anything', async () => {
    const run = await runCommand(Export, ['--env', 'dev'], {
      env: { ...base, VAULT_DOMAIN: 'http://vault.example' },
      cwd: home.dir,
    })
    expect(run.exitCode).toBe(ExitCode.usage)
    expect(run.stderr).toMatch(/refusing plain http:\/\/ to vault.example/)
    expect(run.stdout + run.stderr).not.toContain(canary)
  })

  it.each([
    [['--format', 'toml'], /Expected --format=toml to be one of: dotenv, json, yaml, shell/],
    // --allow-env takes one name per occurrence, as on every command (src/cli/allow-env-flag.ts)
    [['--env', 'dev', '--allow-env', 'DOCKER_HOST', 'BASH_ENV'], /Unexpected argument: BASH_ENV/],
    [
      ['--env', 'dev', '--fallback', '--fallback-max-age', 'soon'],
      /--fallback-max-age must be a duration such as 12h or 7d, got "soon"/,
    ],
  ])('%j is a usage error (exit 2) before anything is fetched', async (argv, message) => {
    const run = await runCommand(Export, argv, {
      env: { ...base, VAULT_DOMAIN: 'http://127.0.0.1:1' },
      cwd: home.dir,
    })
    expect(run.exitCode).toBe(ExitCode.usage)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(message)
  })
})

describe('vault export from a vault (moved from test/integration/cli-vault.test.ts)', () => {
  let vault: SeededVault
  let env: Record<string, string>
  let work: string
  beforeAll(async () => {
    vault = await startCliVault()
    ;({ env, work } = vault)
  }, serverStart)
  afterAll(async () => vault?.stop())

  it('dotenv output is read back exactly by a POSIX shell and by compose', async () => {
    const result = await runCommand(Export, ['--env', 'dev'], { env })
    expect(result.exitCode).toBe(0)
    const file = join(work, 'exported.env')
    writeFileSync(file, result.stdout)
    const names = Object.keys(hostileValues)
    const script = `set -a; . "$1"; shift; for n in "$@"; do eval "printf '%s\\0' \\"\\$$n\\""; done`
    const values = execFileSync('sh', ['-c', script, 'sh', file, ...names], {
      env: { PATH: process.env.PATH },
    })
      .toString('utf8')
      .split('\0')
    expect(Object.fromEntries(names.map((name, i) => [name, values[i]]))).toEqual(hostileValues)
    const composeRead = parseEnvFile(result.stdout, () => undefined)
    expect(Object.fromEntries(names.map((name) => [name, composeRead[name]]))).toEqual(hostileValues)
  })

  it.each(['json', 'yaml', 'shell'] as const)('--format %s succeeds', async (format) => {
    const result = await runCommand(Export, ['--env', 'dev', '--format', format], { env })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('H_UNICODE')
  })

  it('--output-file writes a mode-600 file and nothing to stdout', async () => {
    const file = join(work, 'out.env')
    writeFileSync(file, 'old', { mode: 0o644 })
    const result = await runCommand(Export, ['--env', 'dev', '--output-file', file], { env })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe('')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(parseEnvFile(readFileSync(file, 'utf8'), () => undefined).H_QUOTES).toBe(hostileValues.H_QUOTES)
  })
})
