/**
 * The everyday commands' error paths through the built CLI, with no vault server: exit codes, one
 * line on stderr, nothing on stdout, and the canary client secret never shown (DEBUG=*, --json).
 */
import { createServer } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { createTempHome } from '../helpers/temp-home.js'

const canary = 'CANARY-e2e-secret-91c2'
const home = createTempHome()
afterAll(() => home.cleanup())

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const base = { ...home.env, VAULT_CLIENT_ID: 'cid', VAULT_CLIENT_SECRET: canary }

describe('vault export / secrets error paths', () => {
  it('exits 3 with a hint when no domain is configured', async () => {
    const result = await runCli(['export', '--env', 'dev'], { env: home.env, cwd: home.dir })
    expect(result.exitCode).toBe(3)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      "Error: no vault domain is configured\nHint: set VAULT_DOMAIN (flag --domain, the environment or the stack's .vault/credentials)\n",
    )
  })

  it('exits 2 for plain http:// to a host that is not loopback, without sending anything', async () => {
    const result = await runCli(['export', '--env', 'dev'], {
      env: { ...base, VAULT_DOMAIN: 'http://vault.example' },
      cwd: home.dir,
    })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/refusing plain http:\/\/ to vault.example/)
  })

  it.each([
    [['export', '--env', 'dev'], 'stderr'],
    [['secrets', 'list', '--env', 'dev', '--json'], 'stdout'],
    [['login'], 'stderr'],
  ])('vault %j exits 7 when the vault is unreachable; DEBUG=* shows no secret', async (args, where) => {
    const port = await closedPort()
    const result = await runCli(args, {
      env: { ...base, VAULT_DOMAIN: `http://127.0.0.1:${port}`, DEBUG: '*' },
      cwd: home.dir,
    })
    expect(result.exitCode).toBe(7)
    expect(where === 'stdout' ? JSON.parse(result.stdout).error.code : result.stderr).toMatch(
      /ERR_UNREACHABLE|cannot reach/,
    )
    expect(result.stdout + result.stderr).not.toContain(canary)
  })

  it('secrets set --value warns that process listings show it', async () => {
    const result = await runCli(['secrets', 'set', 'A', '--value', 'CANARY-on-argv'], {
      env: home.env,
      cwd: home.dir,
    })
    expect(result.stderr).toMatch(/--value puts the secret on the command line/)
    expect(result.stdout + result.stderr).not.toContain('CANARY-on-argv')
    expect(result.exitCode).toBe(3)
  })
})

describe('usage errors', () => {
  it.each([
    [['run', '--env', 'dev'], /no command given/],
    [['rotate', '--env', 'dev'], /name the secret to rotate, or pass --due/],
    [['export', '--format', 'toml'], /toml/],
  ])('vault %j exits 2', async (args, message) => {
    const result = await runCli(args, { env: base, cwd: home.dir })
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(message)
  })
})

describe('vault doctor without a set-up', () => {
  it('prints one line per check, fails the vault check and exits 10; --json has the same checks', async () => {
    const port = await closedPort()
    const env = { ...base, VAULT_DOMAIN: `http://127.0.0.1:${port}` }
    const text = await runCli(['doctor', '--stack-dir', home.dir], { env, cwd: home.dir })
    expect(text.exitCode).toBe(10)
    expect(text.stdout).toMatch(
      /^SKIP {2}credentials file present: the credentials come from the environment/m,
    )
    expect(text.stdout).toMatch(/^FAIL {2}vault reachable \(HTTP HEAD\): /m)
    const json = await runCli(['doctor', '--stack-dir', home.dir, '--json'], { env, cwd: home.dir })
    const result = JSON.parse(json.stdout) as { ok: boolean; checks: { id: string; status: string }[] }
    expect(result.ok).toBe(false)
    expect(result.checks.map((check) => check.id)).toEqual([
      'env-credentials',
      'credentials-file',
      'credentials-mode',
      'credentials-git',
      'vault-reachable',
      'credentials',
      'environment',
      'required-variables',
      'compose-client',
      'compose-v1-keys',
      'proxy',
    ])
    expect(json.stdout + json.stderr + text.stdout + text.stderr).not.toContain(canary)
  })
})
