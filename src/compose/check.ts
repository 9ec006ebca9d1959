/**
 * Preflight (`vault render --check`): every problem of a stack at once, errors first. Required
 * variables without a value, malformed references, unset references, vault secrets nothing uses,
 * and values holding a `$` that compose would interpolate again if written to an env file.
 */
import { fileSecretHints } from './file-secret-hints.js'
import { holdsReference } from './interpolate.js'
import type { ComposeProblem, ComposeProject, ProblemLevel } from './types.js'

/** What `vault render --check --json` prints. */
export interface CheckResult {
  ok: boolean
  errors: number
  warnings: number
  infos: number
  problems: ComposeProblem[]
}

const levelRank: Record<ProblemLevel, number> = { error: 0, warning: 1, info: 2 }

function compareProblems(a: ComposeProblem, b: ComposeProblem): number {
  return (
    levelRank[a.level] - levelRank[b.level] ||
    (a.file ?? '').localeCompare(b.file ?? '') ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.variable ?? '').localeCompare(b.variable ?? '')
  )
}

function unique(problems: ComposeProblem[]): ComposeProblem[] {
  const seen = new Set<string>()
  return problems.filter((problem) => {
    const key = JSON.stringify(problem)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** The findings of a project loaded with `collectProblems: true`. */
export function checkProject(project: ComposeProject): CheckResult {
  const problems: ComposeProblem[] = [...project.problems, ...fileSecretHints(project)]
  const referenced = new Set(project.references.map((site) => site.name))
  for (const [name, origin] of Object.entries(project.origins)) {
    if (origin === 'vault' && !referenced.has(name)) {
      problems.push({
        level: 'info',
        code: 'unused_secret',
        message: `vault secret ${name} is not referenced by any compose or env file`,
        variable: name,
      })
    }
    const exported = origin === 'vault' || (origin === 'environment' && referenced.has(name))
    if (exported && holdsReference(project.variables[name] ?? '')) {
      problems.push({
        level: 'warning',
        code: 'dollar_in_value',
        message: `the value of ${name} holds a "$" that compose would interpolate again if written to an env file (write it as "$$")`,
        variable: name,
      })
    }
  }
  const sorted = unique(problems).sort(compareProblems)
  const count = (level: ProblemLevel) => sorted.filter((problem) => problem.level === level).length
  const errors = count('error')
  return { ok: errors === 0, errors, warnings: count('warning'), infos: count('info'), problems: sorted }
}
