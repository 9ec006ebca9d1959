/**
 * Which compose services use a variable: those that interpolate it (`${NAME}`, a bare `environment`
 * entry, a bare key in an env_file), those that mount a compose secret with it as `environment:`
 * source (the same users rotate recreates: usersOf), and those whose container environment has it under that name
 * (for instance every key of an `env_file: .env`). Used by `secrets import`, `secrets init` and rotation.
 */
import type { ComposeProject } from '../compose/index.js'
import { servicesOf, usersOf } from '../compose/references.js'

/** The services (sorted) that use each of `names` in a loaded project. */
export function servicesUsing(project: ComposeProject, names: readonly string[]): Record<string, string[]> {
  const wanted = new Set(names)
  const users = new Map<string, Set<string>>(
    names.map((name) => [name, new Set(servicesOf(usersOf(project, name)))]),
  )
  for (const [service, environment] of Object.entries(serviceEnvironments(project))) {
    for (const name of Object.keys(environment)) if (wanted.has(name)) users.get(name)!.add(service)
  }
  return Object.fromEntries([...users].map(([name, services]) => [name, [...services].sort()]))
}

/** Each service's resolved container environment in the loaded model. */
export function serviceEnvironments(project: ComposeProject): Record<string, Record<string, unknown>> {
  const services = (project.model.services ?? {}) as Record<string, { environment?: Record<string, unknown> }>
  return Object.fromEntries(
    Object.entries(services).map(([service, definition]) => [service, definition.environment ?? {}]),
  )
}

/**
 * Loads the stack's compose project for a question about variables (no value is shown); undefined
 * when the directory holds no compose file. A file the compose file names that is missing (an
 * `env_file: .env` not created yet) is an error, not "no compose file": the caller would otherwise
 * plan for a stack other than this one.
 */
export async function loadStackForUsers(options: {
  stackDir: string
  composeFiles?: string[]
  secrets?: Record<string, string>
}): Promise<ComposeProject | undefined> {
  const { NoComposeFileError, loadComposeProject } = await import('../compose/index.js')
  try {
    return loadComposeProject({
      cwd: options.stackDir,
      files: options.composeFiles,
      secrets: options.secrets,
      collectProblems: true,
    })
  } catch (error) {
    if (error instanceof NoComposeFileError) return undefined
    throw error
  }
}
