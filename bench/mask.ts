/**
 * Cost of output masking: 100 MB of child output (log lines with a secret value every ~64 KB) through
 * `vault run --mask -- cat FILE`, against plain `cat FILE` and `vault run --no-mask -- cat FILE`, each
 * piped into `wc -c`, round-robin in one run. Target (issue 18): --mask within 1.5 x `cat`. The
 * `--no-mask` row is the CLI's own start-up plus a direct pipe, so `--mask` minus `--no-mask` is the
 * price of masking itself. 100 secrets are in the environment, as in bench/cli.
 *
 * Two more rows give the floor of any masking wrapper written in Node, which must start Node and copy
 * every byte through its own process: `node -e 0` followed by `cat` (process start plus the copy), and
 * a Node pass-through (Node spawns `cat` and pipes its output to its own stdout, unmasked). `--mask` is
 * also printed against that pass-through. `VAULT_MASK_FIFO=1 vault run --mask` times the FIFO path
 * (src/masking/fifo-output.ts), off by default for its start-up cost.
 *
 * BENCH_BASE_REPO names another built checkout (e.g. `git archive main` extracted, node_modules
 * symlinked, `make build`): its `vault run --no-mask`, `--mask` and `VAULT_MASK_FIFO=1 ... --mask` are
 * timed in the same rounds, as the "before" of a change. `vault run --mask -- cat /dev/null` splits the
 * masked run into start-up and the relay's throughput. `vault run --mask -- cat FILE 2>&1` times one
 * masked channel for stdout and stderr together (src/masking/same-output.ts).
 */
import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deploymentApi, spawnVaultProcess, startVaultServer } from '../test/helpers/vault-server.js'
import { median, printTable, timeInterleaved } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const baseRoot = process.env.BENCH_BASE_REPO
const baseRunJs = baseRoot ? join(baseRoot, 'bin', 'run.js') : undefined
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
  const vaultRun = (flag: string, cli = runJs, file = output, redirect = '') =>
    `${quoted(process.execPath)} ${quoted(cli)} run --env dev ${flag} -- cat ${quoted(file)}${redirect} | wc -c`
  checkMasked(vaultRun('--mask'), env)
  checkMasked(vaultRun('--mask', runJs, output, ' 2>&1'), env)
  checkMasked(`VAULT_MASK_FIFO=1 ${vaultRun('--mask')}`, env)
  if (baseRunJs) checkMasked(vaultRun('--mask', baseRunJs), env)
  const baseCommands: [string, string[]][] = baseRunJs
    ? [
        ['sh', ['-c', vaultRun('--no-mask', baseRunJs)]],
        ['sh', ['-c', vaultRun('--mask', baseRunJs)]],
        ['sh', ['-c', `VAULT_MASK_FIFO=1 ${vaultRun('--mask', baseRunJs)}`]],
        ['sh', ['-c', vaultRun('--mask', baseRunJs, output, ' 2>&1')]],
      ]
    : []

  const passThrough =
    "const c = require('node:child_process').spawn('cat', [process.env.MASK_BENCH_FILE], " +
    "{ stdio: ['ignore', 'pipe', 'inherit'] }); c.stdout.pipe(process.stdout)"
  const node = quoted(process.execPath)
  const [
    cat,
    started,
    copied,
    unmasked,
    masked,
    fifoMasked,
    startup,
    shared,
    baseUnmasked,
    baseMasked,
    baseFifo,
    baseShared,
  ] = timeInterleaved(
    [
      ['sh', ['-c', `cat ${quoted(output)} | wc -c`]],
      ['sh', ['-c', `${node} -e 0 && cat ${quoted(output)} | wc -c`]],
      ['sh', ['-c', `${node} -e ${quoted(passThrough)} | wc -c`]],
      ['sh', ['-c', vaultRun('--no-mask')]],
      ['sh', ['-c', vaultRun('--mask')]],
      ['sh', ['-c', `VAULT_MASK_FIFO=1 ${vaultRun('--mask')}`]],
      ['sh', ['-c', vaultRun('--mask', runJs, '/dev/null')]],
      ['sh', ['-c', vaultRun('--mask', runJs, output, ' 2>&1')]],
      ...baseCommands,
    ],
    runs,
    { ...env, MASK_BENCH_FILE: output },
  ) as [
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[]?,
    number[]?,
    number[]?,
    number[]?,
  ]
  const row = (name: string, samples: number[], moved = megabytes) => [
    name,
    runs,
    median(samples),
    (moved / median(samples)) * 1000,
    median(samples) / median(cat),
  ]
  printTable(
    ['command (output piped to wc -c)', 'runs', 'median ms', 'MB/s', 'x cat'],
    [
      row(`cat (${megabytes} MB)`, cat),
      row('node -e 0, then cat (process start + copy)', started),
      row('node spawning cat, piping it through itself', copied),
      row('vault run --no-mask -- cat', unmasked),
      row('vault run --mask -- cat', masked),
      row('VAULT_MASK_FIFO=1 vault run --mask -- cat', fifoMasked),
      row('vault run --mask -- cat /dev/null (start-up)', startup, 0),
      row('vault run --mask -- cat 2>&1 (one channel)', shared),
      ...(baseUnmasked && baseMasked && baseFifo && baseShared
        ? [
            row('BASE vault run --no-mask -- cat', baseUnmasked),
            row('BASE vault run --mask -- cat', baseMasked),
            row('BASE VAULT_MASK_FIFO=1 vault run --mask -- cat', baseFifo),
            row('BASE vault run --mask -- cat 2>&1', baseShared),
          ]
        : []),
    ],
  )
  if (baseMasked && baseUnmasked)
    console.log(
      `BASE is ${baseRoot}: masking itself there: ${(median(baseMasked) - median(baseUnmasked)).toFixed(0)} ms over --no-mask`,
    )
  const ratio = median(masked) / median(cat)
  console.log(
    `target: vault run --mask <= 1.5x cat -> ${ratio <= 1.5 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x); ` +
      `masking itself: ${(median(masked) - median(unmasked)).toFixed(0)} ms over --no-mask`,
  )
  console.log(
    `with VAULT_MASK_FIFO=1: ${(median(fifoMasked) / median(cat)).toFixed(2)}x cat; masking itself ` +
      `${(median(fifoMasked) - median(unmasked)).toFixed(0)} ms over --no-mask`,
  )
  const relay = median(masked) - median(startup)
  console.log(
    `split of vault run --mask: start-up ${median(startup).toFixed(0)} ms (no output), the ${megabytes} MB ` +
      `${relay.toFixed(0)} ms more (${((megabytes / relay) * 1000).toFixed(0)} MB/s through the masked relay)`,
  )
  console.log(
    `floor of a Node wrapper: the pass-through is ${(median(copied) / median(cat)).toFixed(2)}x cat; ` +
      `vault run --mask is ${(median(masked) / median(copied)).toFixed(2)}x that pass-through`,
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
