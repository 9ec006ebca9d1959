/**
 * Preflight (`vault render --check`): every problem of a stack at once, errors first. Required
 * variables without a value, malformed references, unset references, vault secrets nothing uses,
 * values holding a `$` that compose would interpolate again if written to an env file, vault
 * secrets written into a command line, and secrets not from the vault or copied (secret-origins.ts).
 */
import { commandLineSecrets } from './command-line-secrets.js'
import { fileSecretHints } from './file-secret-hints.js'
import { holdsReference } from './interpolate.js'
import { secretOriginProblems, type SecretOriginContext } from './secret-origins.js'
import { unsetSecretSources } from './secret-sources.js'
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

/** Vault credentials that would reach a container: by name, or through a reference in a service. */
function credentialLeaks(project: ComposeProject): ComposeProblem[] {
  const problems: ComposeProblem[] = []
  const services = (project.model.services ?? {}) as Record<string, { environment?: Record<string, unknown> }>
  for (const [service, definition] of Object.entries(services)) {
    for (const key of Object.keys(definition.environment ?? {})) {
      if (!vaultCredentialNames.has(key)) continue
      problems.push({
        level: 'error',
        code: 'vault_credential',
        message: `service ${service} would receive the vault credential ${key}: keep it in .vault/credentials (vault doctor --fix), never in .env or an env_file`,
        variable: key,
        service,
      })
    }
  }
  for (const site of project.references) {
    if (site.service === '' || !vaultCredentialNames.has(site.name)) continue
    problems.push({
      level: 'error',
      code: 'vault_credential',
      message: `service ${site.service} references the vault credential ${site.name} (${site.field})`,
      variable: site.name,
      service: site.service,
      file: site.file,
      line: site.line,
    })
  }
  return problems
}

/** Names that are vault credentials: a container holding one can act as the stack's identity. */
const vaultCredentialNames = new Set([
  'VAULT_CLIENT_SECRET',
  'VAULT_CLIENT_ID',
  'VAULT_TOKEN',
  'VAULT_ACCESS_TOKEN',
  'VAULT_OIDC_TOKEN',
])

/** The findings of a project loaded with `collectProblems: true`. */
export function checkProject(project: ComposeProject, context: SecretOriginContext = {}): CheckResult {
  const problems: ComposeProblem[] = [
    ...project.problems,
    ...secretOriginProblems(project, context),
    ...unsetSecretSources(project),
    ...credentialLeaks(project),
    ...fileSecretHints(project),
    ...commandLineSecrets(project),
  ]
  for (const [name, lower] of Object.entries(project.shadowed ?? {})) {
    if (project.origins[name] !== 'vault' || lower !== 'env-file') continue
    problems.push({
      level: 'warning',
      code: 'shadowed_by_vault',
      message: `${name} is set in the project env file and in the vault: the vault's value wins; remove it from the file (vault secrets import FILE --only ${name} --move)`,
      variable: name,
    })
  }
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
