/**
 * Cost of the everyday CLI: median wall time of `vault export --env dev` (100 secrets, cached token,
 * a local vault server process on 127.0.0.1) and `vault run --env dev -- true` against `node -e 0`, in
 * one run; `vault pwgen` (full oclif path) is shown as the cost of the command frame alone. Target
 * (issue 18, item 7): export and run at most 3 times `node -e 0`. The server runs as its own process
 * (the timed runs block this one); the commands run round-robin. bench/cli-breakdown.ts says where the
 * time goes.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deploymentApi, spawnVaultProcess, startVaultServer } from '../test/helpers/vault-server.js'
import { median, printTable, quantile, timeInterleaved } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Math.min(Number(process.env.BENCH_RUNS ?? 30), 200)
const secretCount = 100

const server = await startVaultServer({})
const served = await spawnVaultProcess(server)
const home = mkdtempSync(join(tmpdir(), 'vault-bench-'))
try {
  const credentials = server.deploymentCredentials
  const seed = deploymentApi(server, join(home, 'seed-state'))
  for (let i = 0; i < secretCount; i++) {
    await seed.putSecret(`BENCH_SECRET_${String(i).padStart(3, '0')}`, `value-${i}-${'x'.repeat(32)}`, 'dev')
  }
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_STATE_HOME: join(home, 'state'),
    VAULT_KEYCHAIN: 'off',
    VAULT_DOMAIN: served.url,
    VAULT_PROJECT_ID: server.projectId,
    VAULT_CLIENT_ID: credentials.clientId,
    VAULT_CLIENT_SECRET: credentials.clientSecret,
  }
  const login = spawnSync(process.execPath, [runJs, 'login'], { env, stdio: 'ignore' })
  if (login.status !== 0) throw new Error(`vault login exited with ${login.status}`)

  const [baseline, pwgen, exported, ran] = timeInterleaved(
    [
      [process.execPath, ['-e', '0']],
      [process.execPath, [runJs, 'pwgen']],
      [process.execPath, [runJs, 'export', '--env', 'dev']],
      [process.execPath, [runJs, 'run', '--env', 'dev', '--', 'true']],
    ],
    runs,
    env,
  ) as [number[], number[], number[], number[]]
  const ratio = median(exported) / median(baseline)
  const runRatio = median(ran) / median(baseline)
  printTable(
    ['command', 'runs', 'median ms', 'p90 ms', 'x node -e 0'],
    [
      ['node -e 0', runs, median(baseline), quantile(baseline, 0.9), 1],
      [
        'vault pwgen (frame only)',
        runs,
        median(pwgen),
        quantile(pwgen, 0.9),
        median(pwgen) / median(baseline),
      ],
      [
        `vault export --env dev (${secretCount} secrets)`,
        runs,
        median(exported),
        quantile(exported, 0.9),
        ratio,
      ],
      ['vault run --env dev -- true', runs, median(ran), quantile(ran, 0.9), runRatio],
    ],
  )
  for (const [name, value] of [
    ['vault export', ratio],
    ['vault run', runRatio],
  ] as const) {
    console.log(`target: ${name} <= 3x node -e 0 -> ${value <= 3 ? 'met' : 'NOT met'} (${value.toFixed(2)}x)`)
  }
} finally {
  await served.stop()
  await server.stop()
  rmSync(home, { recursive: true, force: true })
}
