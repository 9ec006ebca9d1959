/**
 * Which container Env values are expected: a container of the stack in --stack-dir (its compose
 * project label is the stack's project name) whose service references the secret holds the secret's
 * current value by design. Any other container holding a value (another project, a service that does
 * not use the secret, or a past version: a container left behind by a rotation) is a finding. Without
 * compose files in the stack directory no Env value is expected.
 */
import { buildChildEnvironment } from '../process/child-env.js'
import type { EnvExpectation } from './engine-source.js'

/** The expectation of the stack in `stackDir`, given the current values (for interpolation). */
export async function stackExpectation(options: {
  stackDir: string
  composeFiles?: string[]
  secrets: Record<string, string>
  note: (line: string) => void
}): Promise<EnvExpectation> {
  const { findReferences, loadComposeProject } = await import('../compose/index.js')
  let project: ReturnType<typeof loadComposeProject>
  try {
    project = loadComposeProject({
      cwd: options.stackDir,
      files: options.composeFiles,
      environment: buildChildEnvironment(process.env, options.secrets),
      collectProblems: true,
    })
  } catch {
    options.note(`no compose stack in ${options.stackDir}: every container Env holding a value is reported`)
    return () => false
  }
  const users = new Map<string, Set<string>>()
  const servicesUsing = (name: string) => {
    if (!users.has(name))
      users.set(
        name,
        new Set(findReferences(project, name).flatMap((site) => (site.service ? [site.service] : []))),
      )
    return users.get(name)!
  }
  return (finding, container) =>
    finding.current &&
    container.project === project.name &&
    container.service !== undefined &&
    servicesUsing(finding.secret).has(container.service)
}
