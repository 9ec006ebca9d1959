/**
 * `vault export` in process, with no vault server: the usage and set-up errors a user meets first
 * (moved from the spawned test/e2e/cli-errors.test.ts and exit-codes.test.ts). Exit code, one line
 * and a hint on stderr, nothing on stdout, the client secret never shown.
 */
import { afterAll, describe, expect, it } from 'vitest'
import Export from '../../../src/commands/export.js'
import { ExitCode } from '../../../src/errors.js'
import { runCommand } from '../../helpers/run-command.js'
import { createTempHome } from '../../helpers/temp-home.js'

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
