/**
 * Startup cost of the CLI on the full oclif path (the command lines src/cli/lean.ts does not take):
 * median wall time of `vault pwgen`, `vault --help`, `vault secrets list --help` and `vault --version`
 * against `node -e 0`, round-robin in one run. Target (issue 2): `vault pwgen` at most 4 times
 * `node -e 0`. With BENCH_BASE_RUN_JS set to another build's bin/run.js, the same command lines of
 * that build are timed in the same rounds (before/after a change).
 */
import { fileURLToPath } from 'node:url'
import { median, printRatioTable, timeInterleaved } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const baseRunJs = process.env.BENCH_BASE_RUN_JS
const runs = Math.min(Number(process.env.BENCH_RUNS ?? 30), 200)

const lines: [string, string[]][] = [
  ['vault pwgen', ['pwgen']],
  ['vault --help', ['--help']],
  ['vault secrets list --help', ['secrets', 'list', '--help']],
  ['vault --version', ['--version']],
]
const commands: [string, string, string[]][] = [
  ['node -e 0', process.execPath, ['-e', '0']],
  ...lines.map(([name, args]): [string, string, string[]] => [name, process.execPath, [runJs, ...args]]),
]
if (baseRunJs) {
  for (const [name, args] of lines) commands.push([`BASE ${name}`, process.execPath, [baseRunJs, ...args]])
}
const samples = timeInterleaved(
  commands.map(([, file, args]) => [file, args]),
  runs,
)
const baseline = median(samples[0]!)
printRatioTable(
  commands.map(([name]) => name),
  samples,
)
const ratio = median(samples[1]!) / baseline
console.log(`target: vault pwgen <= 4x node -e 0 -> ${ratio <= 4 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x)`)
