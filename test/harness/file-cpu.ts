/**
 * A set-up file of every project: the CPU seconds a test file took, its worker's own and those of the
 * processes it started and reaped (the CLI runs, docker-compose, spawned servers: Linux's cutime/cstime),
 * put in the file's meta for test/harness/summary-reporter.ts. What the shared engine, PostgreSQL and
 * MariaDB do for it is not counted (they are not its children). On a 2-core machine the run cannot end
 * before half the CPU seconds of its files: the figure says whether more workers can help.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll } from 'vitest'

declare module '@vitest/runner' {
  interface TaskMeta {
    /** CPU seconds of the file's worker and the processes it reaped. */
    cpuSeconds?: number
  }
}

const ticksPerSecond = 100

/** utime + stime + cutime + cstime of this process, in seconds; undefined without /proc. */
function cpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // fields after the command name in parentheses: state is the first, utime the 12th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0) / ticksPerSecond
  } catch {
    return undefined
  }
}

// set per file: without isolation (the unit project) one worker runs many files
let startedAt: number | undefined
beforeAll(() => {
  startedAt = cpuSeconds()
})

// vitest reads a hook's first parameter as a fixture pattern: it must be an object pattern
// eslint-disable-next-line no-empty-pattern
afterAll(({}, file) => {
  const now = cpuSeconds()
  if (startedAt !== undefined && now !== undefined) file.meta.cpuSeconds = now - startedAt
})
