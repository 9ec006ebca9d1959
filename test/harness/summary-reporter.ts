/**
 * Prints one plain closing line after the run, `tests: N passed, N failed, N skipped`, so that CI logs carry
 * a summary any reader understands, and lists the skipped tests by name so that no skip goes unnoticed.
 */
import type { Reporter, TestModule } from 'vitest/node'

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
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
