/**
 * Values that are not secrets (issue 35 item 10) against the real server over HTTP: `secrets set
 * --plain` keeps a per-version flag (kept by rollback); `secrets list` shows KIND secret/template/plain;
 * `vault run --mask` and `render --mask` show a plain value and mask a secret; `rotate --due` leaves it out.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'

let server: TestVault
let home: TempHome
let env: Record<string, string>
let dir: string
const secret = 'CANARY-secret-value-83ad'
// vault run starts a child: the built CLI; every other command runs in process
const cli = (args: string[], input?: string) =>
  args[0] === 'run' ? runCli(args, { env, input, cwd: dir }) : runCommandLine(args, { env, input, cwd: dir })

beforeAll(async () => {
  server = await startVaultServer({})
  home = createTempHome()
  dir = mkdtempSync('/tmp/vault-plain-')
  env = {
    ...home.env,
    ...deploymentVariables(server),
  }
  writeFileSync(
    join(dir, 'compose.yaml'),
    'services:\n  app:\n    image: busybox\n    environment:\n      HOST: ${APP_DOMAIN}\n      KEY: ${APP_API_KEY}\n',
  )
  expect((await cli(['secrets', 'set', 'APP_API_KEY', '--env', 'dev'], secret)).exitCode).toBe(0)
  const set = await cli(
    ['secrets', 'set', 'APP_DOMAIN', '--env', 'dev', '--plain'],
    'plain-domain.example.org',
  )
  expect(set.exitCode, set.stderr).toBe(0)
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('plain values', () => {
  it('secrets list shows the kind of each', async () => {
    const table = await cli(['secrets', 'list', '--env', 'dev'])
    expect(table.stdout).toMatch(/^APP_DOMAIN\s+1\s+\S+\s+plain$/m)
    expect(table.stdout).toMatch(/^APP_API_KEY\s+1\s+\S+\s+secret$/m)
    const listed = JSON.parse((await cli(['secrets', 'list', '--env', 'dev', '--json'])).stdout)
    expect(listed.secrets.find((s: { name: string }) => s.name === 'APP_DOMAIN').plain).toBe(true)
    expect(listed.secrets.find((s: { name: string }) => s.name === 'APP_API_KEY').plain).toBeUndefined()
  })

  it('vault run --mask and render --mask show a plain value and mask a secret', async () => {
    const run = await cli([
      'run',
      '--env',
      'dev',
      '--mask',
      '--',
      'sh',
      '-c',
      'echo "$APP_DOMAIN $APP_API_KEY"',
    ])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain('plain-domain.example.org')
    expect(run.stdout).not.toContain(secret)
    const render = await cli(['render', '--env', 'dev', '--mask'])
    expect(render.exitCode, render.stderr).toBe(0)
    expect(render.stdout).toContain('HOST: plain-domain.example.org')
    expect(render.stdout).not.toContain(secret)
  })

  it('rotate --due leaves a plain value out; rollback keeps the flag', async () => {
    const due = JSON.parse(
      (await cli(['rotate', '--due', '--env', 'dev', '--json', '--max-age', '*=0'])).stdout,
    )
    const names = due.secrets.map((entry: { name: string }) => entry.name)
    expect(names).toContain('APP_API_KEY')
    expect(names).not.toContain('APP_DOMAIN')
    expect((await cli(['secrets', 'set', 'APP_DOMAIN', '--env', 'dev'], 'now-a-secret')).exitCode).toBe(0)
    expect((await cli(['secrets', 'list', '--env', 'dev'])).stdout).toMatch(
      /^APP_DOMAIN\s+2\s+\S+\s+secret$/m,
    )
    expect((await cli(['secrets', 'rollback', 'APP_DOMAIN', '1', '--env', 'dev'])).exitCode).toBe(0)
    expect((await cli(['secrets', 'list', '--env', 'dev'])).stdout).toMatch(/^APP_DOMAIN\s+3\s+\S+\s+plain$/m)
  })
})
