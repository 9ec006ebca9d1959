/**
 * Prints one plain closing line after the run, `tests: N passed, N failed, N skipped`, so that CI logs carry
 * a summary any reader understands, and lists the skipped tests by name so that no skip goes unnoticed.
 * Before it, each project's files, the time and the CPU its files took (summed over files, which run in
 * parallel), the run's wall time and the ten files that took the most CPU (where a faster run starts). With VAULT_TEST_WRITE_SECONDS=1 it also writes the seconds of each file that took
 * 5 s or more to test/harness/file-seconds.json, the order test/harness/sequencer.ts starts files in.
 */
import { writeFileSync } from 'node:fs'
import type { Reporter, TestModule } from 'vitest/node'
import { fileSecondsPath } from './sequencer.js'

export default class SummaryReporter implements Reporter {
  private readonly startedAt = performance.now()

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    process.stdout.write(projectTimes(testModules, performance.now() - this.startedAt))
    process.stdout.write(heaviestFiles(testModules, 10))
    if (process.env.VAULT_TEST_WRITE_SECONDS === '1') writeFileSeconds(testModules)
    let passed = 0
    let failed = 0
    const skipped: string[] = []
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else skipped.push(`${module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}`)
      }
    }
    if (skipped.length > 0)
      process.stdout.write(`\nskipped tests:\n${skipped.map((name) => `  - ${name}`).join('\n')}\n`)
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped.length} skipped\n`)
  }
}

/**
 * One line per project: its files, the seconds they took and their CPU seconds (both summed; the CPU of
 * a file's worker and the processes it reaped, test/harness/file-cpu.ts), then the run's wall time.
 */
function projectTimes(testModules: ReadonlyArray<TestModule>, wallMs: number): string {
  const projects = new Map<string, { files: number; ms: number; cpu: number }>()
  for (const module of testModules) {
    const entry = projects.get(module.project.name) ?? { files: 0, ms: 0, cpu: 0 }
    entry.files++
    entry.ms += module.diagnostic().duration
    entry.cpu += module.meta().cpuSeconds ?? 0
    projects.set(module.project.name, entry)
  }
  const lines = [...projects].map(
    ([name, { files, ms, cpu }]) =>
      `  ${name.padEnd(12)} ${String(files).padStart(4)} files  ${(ms / 1000).toFixed(1).padStart(7)} s  cpu ${cpu.toFixed(1).padStart(7)} s`,
  )
  const cpu = [...projects.values()].reduce((sum, { cpu }) => sum + cpu, 0)
  return `\nproject times (file time and CPU summed; files run in parallel):\n${lines.join('\n')}\n  wall time ${(wallMs / 1000).toFixed(1)} s, cpu ${cpu.toFixed(1)} s\n`
}

/** The `count` files with the most CPU seconds, with their time. */
function heaviestFiles(testModules: ReadonlyArray<TestModule>, count: number): string {
  const heaviest = testModules
    .map((module) => ({
      path: module.relativeModuleId,
      cpu: module.meta().cpuSeconds ?? 0,
      ms: module.diagnostic().duration,
    }))
    .sort((a, b) => b.cpu - a.cpu)
    .slice(0, count)
  const lines = heaviest.map(
    ({ path, cpu, ms }) =>
      `  cpu ${cpu.toFixed(1).padStart(6)} s  time ${(ms / 1000).toFixed(1).padStart(6)} s  ${path}`,
  )
  return `\nfiles with the most CPU:\n${lines.join('\n')}\n`
}

/** The seconds of each file of 5 s or more, longest first, for the sequencer of a checkout without a cache. */
function writeFileSeconds(testModules: ReadonlyArray<TestModule>): void {
  const seconds = testModules
    .map((module) => [module.relativeModuleId, Math.round(module.diagnostic().duration / 1000)] as const)
    .filter(([, duration]) => duration >= 5)
    .sort(([pathA, a], [pathB, b]) => b - a || pathA.localeCompare(pathB))
  writeFileSync(fileSecondsPath, `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`)
}
