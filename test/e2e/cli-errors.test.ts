/**
 * The everyday commands' error paths through the built CLI, with no vault server: exit 7 for an
 * unreachable vault, and the canary client secret never shown under DEBUG=* (which oclif's debug
 * module reads once, at start-up: a process per case). The usage and set-up errors are tested in
 * process (test/unit/commands/export.test.ts, run.test.ts, rotate.test.ts, secrets/set.test.ts, doctor.test.ts).
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
})
