/**
 * Where the time of `vault export --env dev` (100 secrets, cached token) and `vault run` goes, in one
 * run against a local vault server process: process start (`node -e 0`), the full oclif frame (`vault
 * pwgen`), the same export through the full oclif path (test/helpers/oclif-path.mjs: oclif's Config
 * load, which the lean path of src/cli/lean.ts skips), the commands as users run them, and, timed from
 * this process over a warm connection, the token exchange, the list call without values and with
 * values (the difference is the server's decryption). With BENCH_BASE_RUN_JS set to another build's
 * bin/run.js, its pwgen, full-path export (its test/helpers/oclif-path.mjs), export and run are timed
 * in the same rounds (before/after a change).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deploymentApi, spawnVaultProcess, startVaultServer } from '../test/helpers/vault-server.js'
import { median, printRatioTable, printTable, timeInterleaved } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const oclifPathJs = fileURLToPath(new URL('../test/helpers/oclif-path.mjs', import.meta.url))
const baseRunJs = process.env.BENCH_BASE_RUN_JS
const runs = Math.min(Number(process.env.BENCH_RUNS ?? 30), 200)

const server = await startVaultServer({})
const served = await spawnVaultProcess(server)
const home = mkdtempSync(join(tmpdir(), 'vault-bench-breakdown-'))
try {
  const seed = deploymentApi(server, join(home, 'seed-state'))
  for (let i = 0; i < 100; i++) {
    await seed.putSecret(`BENCH_SECRET_${String(i).padStart(3, '0')}`, `value-${i}-${'x'.repeat(32)}`, 'dev')
  }
  const credentials = server.deploymentCredentials
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CONFIG_HOME: join(home, 'config'),
    VAULT_KEYCHAIN: 'off',
    VAULT_DOMAIN: served.url,
    VAULT_PROJECT_ID: server.projectId,
    VAULT_CLIENT_ID: credentials.clientId,
    VAULT_CLIENT_SECRET: credentials.clientSecret,
  }
  const login = spawnSync(process.execPath, [runJs, 'login'], { env, stdio: 'ignore' })
  if (login.status !== 0) throw new Error(`vault login exited with ${login.status}`)

  const commands: [string, string, string[]][] = [
    ['node -e 0 (process start)', process.execPath, ['-e', '0']],
    ['vault pwgen (oclif frame)', process.execPath, [runJs, 'pwgen']],
    ['vault export --env dev, full oclif path', process.execPath, [oclifPathJs, 'export', '--env', 'dev']],
    ['vault export --env dev', process.execPath, [runJs, 'export', '--env', 'dev']],
    ['vault export --env dev --fallback', process.execPath, [runJs, 'export', '--env', 'dev', '--fallback']],
    [
      'vault run --env dev -- true (stdout a file: masked)',
      process.execPath,
      [runJs, 'run', '--env', 'dev', '--', 'true'],
    ],
    [
      'vault run --env dev --no-mask -- true',
      process.execPath,
      [runJs, 'run', '--env', 'dev', '--no-mask', '--', 'true'],
    ],
  ]
  if (baseRunJs) {
    const baseOclifPathJs = join(baseRunJs, '..', '..', 'test', 'helpers', 'oclif-path.mjs')
    commands.push(['BASE vault pwgen (oclif frame)', process.execPath, [baseRunJs, 'pwgen']])
    commands.push([
      'BASE vault export --env dev, full oclif path',
      process.execPath,
      [baseOclifPathJs, 'export', '--env', 'dev'],
    ])
    commands.push(['BASE vault export --env dev', process.execPath, [baseRunJs, 'export', '--env', 'dev']])
    commands.push([
      'BASE vault run --env dev -- true',
      process.execPath,
      [baseRunJs, 'run', '--env', 'dev', '--', 'true'],
    ])
  }
  const samples = timeInterleaved(
    commands.map(([, file, args]) => [file, args]),
    runs,
    env,
  )
  printRatioTable(
    commands.map(([name]) => name),
    samples,
  )
  const at = (index: number) => median(samples[index]!)
  console.log(
    `process start ${at(0).toFixed(1)} ms; oclif Config load and plugin discovery (full path minus ` +
      `lean path) ${(at(2) - at(3)).toFixed(1)} ms; lean export above process start ` +
      `(module load, flag parsing, cached token, fetch, output) ${(at(3) - at(0)).toFixed(1)} ms`,
  )

  const token = await server.token(credentials, served.url)
  const list = (values: boolean) => () =>
    fetch(`${served.url}/api/v1/secrets?environment=dev&values=${values}`, {
      headers: { authorization: `Bearer ${token}` },
    })
  const exchange = () =>
    fetch(`${served.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
      }),
    })
  const calls = [exchange, list(false), list(true)]
  const times = calls.map((): number[] => [])
  for (let round = -3; round < runs; round++) {
    for (const [index, call] of calls.entries()) {
      const start = process.hrtime.bigint()
      await (await call()).arrayBuffer()
      if (round >= 0) times[index]!.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
  }
  console.log('')
  printTable(
    ['HTTP call from a warm client', 'runs', 'median ms'],
    [
      ['POST /auth/token (token exchange; export skips it with a cached token)', runs, median(times[0]!)],
      ['GET /secrets?values=false (fetch without decryption)', runs, median(times[1]!)],
      ['GET /secrets (fetch with 100 values decrypted)', runs, median(times[2]!)],
    ],
  )
} finally {
  await served.stop()
  await server.stop()
  rmSync(home, { recursive: true, force: true })
}
