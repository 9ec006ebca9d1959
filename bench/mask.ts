/**
 * Cost of output masking: 100 MB of child output (log lines with a secret value every ~64 KB) through
 * `vault run --mask -- cat FILE`, against plain `cat FILE` and `vault run --no-mask -- cat FILE`, each
 * piped into `wc -c`, round-robin in one run. Target (issue 18): --mask within 1.5 x `cat`. The
 * `--no-mask` row is the CLI's own start-up plus a direct pipe, so `--mask` minus `--no-mask` is the
 * price of masking itself. 100 secrets are in the environment, as in bench/cli.
 */
import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deploymentApi, spawnVaultProcess, startVaultServer } from '../test/helpers/vault-server.js'
import { median, printTable, timeInterleaved } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Math.min(Number(process.env.BENCH_RUNS ?? 7), 50)
const megabytes = Number(process.env.BENCH_MASK_MB ?? 100)
const secretCount = 100
const values = Array.from({ length: secretCount }, (_, i) => `value-${i}-${'x'.repeat(32)}`)

const server = await startVaultServer({})
const served = await spawnVaultProcess(server)
const home = mkdtempSync(join(tmpdir(), 'vault-bench-mask-'))
try {
  const seed = deploymentApi(server, join(home, 'seed-state'))
  for (const [i, value] of values.entries()) {
    await seed.putSecret(`BENCH_SECRET_${String(i).padStart(3, '0')}`, value, 'dev')
  }
  const output = join(home, 'output.log')
  writeOutput(output, megabytes * 1024 * 1024)
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_STATE_HOME: join(home, 'state'),
    VAULT_KEYCHAIN: 'off',
    VAULT_DOMAIN: served.url,
    VAULT_PROJECT_ID: server.projectId,
    VAULT_CLIENT_ID: server.deploymentCredentials.clientId,
    VAULT_CLIENT_SECRET: server.deploymentCredentials.clientSecret,
  }
  const login = spawnSync(process.execPath, [runJs, 'login'], { env, stdio: 'ignore' })
  if (login.status !== 0) throw new Error(`vault login exited with ${login.status}`)
  const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`
  const vaultRun = (flag: string) =>
    `${quoted(process.execPath)} ${quoted(runJs)} run --env dev ${flag} -- cat ${quoted(output)} | wc -c`
  checkMasked(vaultRun('--mask'), env)

  const [cat, unmasked, masked] = timeInterleaved(
    [
      ['sh', ['-c', `cat ${quoted(output)} | wc -c`]],
      ['sh', ['-c', vaultRun('--no-mask')]],
      ['sh', ['-c', vaultRun('--mask')]],
    ],
    runs,
    env,
  ) as [number[], number[], number[]]
  const row = (name: string, samples: number[]) => [
    name,
    runs,
    median(samples),
    (megabytes / median(samples)) * 1000,
    median(samples) / median(cat),
  ]
  printTable(
    ['command (output piped to wc -c)', 'runs', 'median ms', 'MB/s', 'x cat'],
    [
      row(`cat (${megabytes} MB)`, cat),
      row('vault run --no-mask -- cat', unmasked),
      row('vault run --mask -- cat', masked),
    ],
  )
  const ratio = median(masked) / median(cat)
  console.log(
    `target: vault run --mask <= 1.5x cat -> ${ratio <= 1.5 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x); ` +
      `masking itself: ${(median(masked) - median(unmasked)).toFixed(0)} ms over --no-mask`,
  )
} finally {
  await served.stop()
  await server.stop()
  rmSync(home, { recursive: true, force: true })
}

/** Writes `size` bytes of log lines, with one of the secret values every 700 lines (~64 KB). */
function writeOutput(path: string, size: number): void {
  const line = '2026-11-24T06:00:00Z app[1234]: INFO request handled path=/api/v1/things status=200 ms=12\n'
  const lines: string[] = []
  for (let i = 0; i < 700; i++) lines.push(line)
  const fd = openSync(path, 'w')
  try {
    let written = 0
    for (let block = 0; written < size; block++) {
      const text = Buffer.from(`${lines.join('')}token=${values[block % values.length]}\n`)
      written += writeSync(fd, text.subarray(0, Math.min(text.length, size - written)))
    }
  } finally {
    closeSync(fd)
  }
}

/** Fails the benchmark unless the masked output has the expected size and no value in it. */
function checkMasked(command: string, env: NodeJS.ProcessEnv): void {
  const result = spawnSync(
    'sh',
    ['-c', command.replace('| wc -c', `| grep -c -e ${values[0]} -e ${values[99]}`)],
    {
      env,
      encoding: 'utf8',
    },
  )
  if (result.stdout.trim() !== '0') throw new Error(`masked output still holds values: ${result.stdout}`)
}
