/** Shared helpers for the benchmark scripts: wall-time measurement of commands and table output. */
import { spawnSync } from 'node:child_process'

/** Runs a command `runs` times (after one warm-up) and returns each wall time in milliseconds. */
export async function timeCommand(
  file: string,
  args: string[],
  runs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number[]> {
  return timeInterleaved([[file, args]], runs, env)[0]!
}

/**
 * Wall times (ms) of each command, run round-robin (one of each per round, after one warm-up round)
 * so that every command sees the same background load on a shared machine.
 */
export function timeInterleaved(
  commands: [string, string[]][],
  rounds: number,
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): number[][] {
  const samples = commands.map((): number[] => [])
  for (let round = -1; round < rounds; round++) {
    commands.forEach(([file, args], index) => {
      const start = process.hrtime.bigint()
      const result = spawnSync(file, args, { stdio: 'ignore', env, cwd })
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6
      if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} exited with ${result.status}`)
      if (round >= 0) samples[index]!.push(elapsed)
    })
  }
  return samples
}

/** The median of a sample. */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Quantile p (0..1) of a sample. */
export function quantile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

/**
 * Prints the wall times of interleaved commands (`names[i]` timed in `samples[i]`), each as a multiple
 * of the first one's median (`node -e 0` in the start-up benchmarks).
 */
export function printRatioTable(names: string[], samples: number[][], baselineName = 'node -e 0'): void {
  const baseline = median(samples[0]!)
  printTable(
    ['command', 'runs', 'median ms', 'p90 ms', `x ${baselineName}`],
    names.map((name, index) => [
      name,
      samples[index]!.length,
      median(samples[index]!),
      quantile(samples[index]!, 0.9),
      median(samples[index]!) / baseline,
    ]),
  )
}

/** Prints an aligned text table; numbers get two decimals. */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const cells = [
    headers,
    ...rows.map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell))),
  ]
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => String(row[i] ?? '').length)))
  const line = (row: (string | number)[]) => row.map((cell, i) => String(cell).padEnd(widths[i]!)).join('  ')
  console.log(line(cells[0]!))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const row of cells.slice(1)) console.log(line(row))
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2)
}
