/**
 * Human output of `vault doctor`: one line per check, a hint under each failure.
 */
import type { DoctorResult } from './checks.js'
import { fields } from '../text/terminal-text.js'

const marks = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const

/** The checks as lines: `PASS  title: detail`, with `      hint: ...` after a failure. */
export function formatDoctorReport(result: DoctorResult): string {
  const lines: string[] = []
  for (const check of result.checks) {
    lines.push(fields`${marks[check.status]}  ${check.title}: ${check.detail}`)
    if (check.status === 'fail' && check.hint) lines.push(fields`      hint: ${check.hint}`)
  }
  const failures = result.checks.filter((check) => check.status === 'fail').length
  lines.push(failures === 0 ? 'all checks passed' : `${failures} check(s) failed`)
  return lines.join('\n')
}
