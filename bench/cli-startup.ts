/**
 * Startup cost of the CLI: median wall time of `vault pwgen` against `node -e 0`, in one run.
 * Target (issue 2): `vault pwgen` at most 4 times `node -e 0`.
 */
import { median, printTable, quantile, timeCommand } from './lib/timing.js'
import { fileURLToPath } from 'node:url'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Number(process.env.BENCH_RUNS ?? 30)

const baseline = await timeCommand(process.execPath, ['-e', '0'], runs)
const pwgen = await timeCommand(process.execPath, [runJs, 'pwgen'], runs)
const ratio = median(pwgen) / median(baseline)
printTable(
  ['command', 'runs', 'median ms', 'p90 ms', 'x node -e 0'],
  [
    ['node -e 0', runs, median(baseline), quantile(baseline, 0.9), 1],
    ['vault pwgen', runs, median(pwgen), quantile(pwgen, 0.9), ratio],
  ],
)
console.log(`target: vault pwgen <= 4x node -e 0 -> ${ratio <= 4 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x)`)
