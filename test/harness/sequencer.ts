/**
 * The order test files start in: longest first, whatever their project, so that the slowest files (a
 * third-party stack migrated end to end, a minute of proxy traffic) start at once and the short ones
 * fill the workers around them; started last, one of them alone would make the run's tail.
 * A file's expected seconds: this checkout's vitest cache of the last run when it has them (in
 * node_modules/.vite), else test/harness/file-seconds.json (measured; `VAULT_TEST_WRITE_SECONDS=1` makes
 * the summary reporter write it again), else 0 (short files, ordered larger file first).
 * Groups (sequence.groupOrder) stay as vitest runs them: one after another, lowest first.
 */
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

export const fileSecondsPath = new URL('./file-seconds.json', import.meta.url)

function measuredSeconds(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(fileSecondsPath, 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const measured = measuredSeconds()
    const root = this.ctx.config.root
    const expected = new Map<TestSpecification, { seconds: number; size: number }>()
    for (const spec of files) {
      const path = relative(root, spec.moduleId)
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`)
      expected.set(spec, {
        seconds: cached ? cached.duration / 1000 : (measured[path] ?? 0),
        size: this.ctx.cache.getFileStats(`${spec.project.name}:${path}`)?.size ?? 0,
      })
    }
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder
      if (group !== 0) return group
      const [first, second] = [expected.get(a)!, expected.get(b)!]
      return second.seconds - first.seconds || second.size - first.size
    })
  }
}
