/**
 * The data commands (export, inject, render, run) start through a lean path that skips oclif's Config
 * (src/cli/lean.ts). Users must not be able to tell: for each command line below, bin/run.js and the
 * full oclif path (test/helpers/oclif-path.mjs) give the same stdout, stderr and exit code, with good
 * flags, bad flags, unknown flags, --help, --json errors and the child's exit code. The built CLI
 * against a real vault server on 127.0.0.1 (SQLite in a temporary directory).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oclifPathJs, runCli } from '../helpers/cli.js'
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
const work = mkdtempSync(join(tmpdir(), 'vault-lean-path-'))

beforeAll(async () => {
  server = await startVaultServer({})
  home = createTempHome()
  env = {
    ...home.env,
    ...deploymentVariables(server),
  }
  const api = deploymentApi(server, join(work, 'seed'))
  await api.putSecret('DATABASE_PASSWORD', 'db-pw-1', 'dev')
  await api.putSecret('API_TOKEN', 'token-value-2', 'dev')
  writeFileSync(
    join(work, 'compose.yaml'),
    'services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: ${DATABASE_PASSWORD}\n',
  )
  writeFileSync(join(work, 'app.conf.tpl'), 'password = ${DATABASE_PASSWORD}\ntoken = ${API_TOKEN}\n')
  writeFileSync(join(work, 'broken.tpl'), 'password = ${DATABASE_PASSWORD\n')
  // the first command exchanges the client secret for a token and caches it; every line below then
  // finds the same cached token on both paths
  expect((await runCli(['export', '--env', 'dev'], { env, cwd: work })).exitCode).toBe(0)
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

const lines: string[][] = [
  ['export', '--env', 'dev'],
  ['export', '--env=dev', '--format', 'json'],
  ['export', '-e', 'dev', '-f', 'shell'],
  ['export', '--env', 'dev', '--format', 'nope'],
  ['export', '--env', 'dev', '--bogus'],
  ['export', '--env', 'dev', '--json'],
  ['export', '--env', 'dev', 'extra'],
  ['export', 'extra'],
  ['export', '--env', 'missing'],
  ['export', '--env'],
  ['export'],
  ['export', '--env', 'dev', '--help'],
  ['export', '--env', 'dev', '--fallback-max-age', 'soon'],
  ['run', '--env', 'dev', '--', 'sh', '-c', 'echo "$DATABASE_PASSWORD"; exit 3'],
  ['run', '--env', 'dev', '--no-mask', '--', 'printenv', 'API_TOKEN'],
  ['run', '--env', 'dev', '--', 'echo', '--help'],
  ['run', '--env', 'dev'],
  ['run', '--bogus', '--', 'true'],
  ['run', '--help'],
  ['render', '--env', 'dev'],
  ['render', '--env', 'dev', '--format', 'json', '--mask'],
  ['render', '-f', 'missing.yaml', '--json'],
  ['render', '--env', 'dev', '--who-uses', 'DATABASE_PASSWORD', '--json'],
  ['render', '--no-such-flag', '--json'],
  ['inject', '-i', 'app.conf.tpl', '--env', 'dev'],
  ['inject', '-i', 'broken.tpl', '--env', 'dev', '--check', '--json'],
  ['inject', '-i', 'missing.tpl', '--env', 'dev'],
  ['inject', '--env', 'dev'],
]

describe('the lean path and the full oclif path', () => {
  it.each(lines.map((args) => [args.join(' '), args] as const))(
    'vault %s: same stdout, stderr and exit code',
    async (_, args) => {
      const lean = await runCli(args, { env, cwd: work })
      const full = await runCli(args, { env, cwd: work, entry: oclifPathJs })
      expect(lean).toEqual(full)
    },
  )

  it('bin/run.js really takes the lean path (the lean bundle) for a data command, and the helper the oclif path', async () => {
    // Node's compile-cache debug log names every ES module file the CLI loads
    const traced = { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }
    const lean = await runCli(['export', '--env', 'dev'], { env: traced, cwd: work })
    const full = await runCli(['export', '--env', 'dev'], { env: traced, cwd: work, entry: oclifPathJs })
    expect(lean.stderr).toMatch(/dist\/cli\/lean\/export\.js/)
    expect(lean.stderr).not.toMatch(/oclif-path\.js|dist\/cli\/commands\//)
    expect(full.stderr).toMatch(/dist\/cli\/oclif-path\.js/)
  })

  it('gives the same --json error when VAULT_CONTENT_TYPE=json asks for JSON', async () => {
    const args = ['render', '-f', 'missing.yaml']
    const jsonEnv = { ...env, VAULT_CONTENT_TYPE: 'json' }
    const lean = await runCli(args, { env: jsonEnv, cwd: work })
    expect(JSON.parse(lean.stdout)).toMatchObject({ error: { exitCode: lean.exitCode } })
    expect(lean).toEqual(await runCli(args, { env: jsonEnv, cwd: work, entry: oclifPathJs }))
  })

  it('the table covers successes, usage errors, help and a child exit code', async () => {
    const codes = new Set<number>()
    for (const args of [lines[0]!, lines[4]!, lines[13]!]) {
      codes.add((await runCli(args, { env, cwd: work })).exitCode)
    }
    expect([...codes].sort()).toEqual([0, 2, 3])
  })
})
