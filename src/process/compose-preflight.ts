/**
 * The compose side of `vault run`: which variables the stack's compose files reference
 * (`--only-referenced`) and the render preflight (`--check`), refusing to start when a required
 * variable has no value. Problems name variables and places, never values.
 */
import { NotConfiguredError } from '../errors.js'
import { hostEnvironment } from './withheld-variables.js'

export interface PreflightOptions {
  cwd: string
  files?: string[]
  profiles?: string[]
  secrets: Record<string, string>
  hostEnv: NodeJS.ProcessEnv
  preferHost?: boolean
  /** Withheld host variables that may still be interpolated (`--allow-env NAME`). */
  allowEnv?: readonly string[]
  check: boolean
}

export interface PreflightResult {
  referenced: Set<string>
  warnings: string[]
}

/** Loads the compose project with the secrets as its top layer and checks it when asked. */
export async function composePreflight(options: PreflightOptions): Promise<PreflightResult> {
  const { checkProject, loadComposeProject } = await import('../compose/index.js')
  const project = loadComposeProject({
    cwd: options.cwd,
    files: options.files,
    profiles: options.profiles,
    environment: hostEnvironment(options.hostEnv, options.allowEnv),
    secrets: options.secrets,
    preferHostEnv: options.preferHost,
    collectProblems: true,
  })
  const referenced = new Set(project.references.map((site) => site.name))
  if (!options.check) return { referenced, warnings: [] }
  const result = checkProject(project)
  const errors = result.problems.filter((problem) => problem.level === 'error')
  if (errors.length > 0) {
    const more =
      errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''})` : ''
    throw new NotConfiguredError(
      `preflight failed: ${errors[0]!.message}${more}; the command was not started`,
      {
        hint: 'vault render --check --env <slug> lists every problem',
      },
    )
  }
  const warnings = result.problems
    .filter((problem) => problem.level === 'warning')
    .map((problem) => problem.message)
  return { referenced, warnings }
}
