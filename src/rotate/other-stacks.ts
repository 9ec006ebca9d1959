/**
 * After a rotation: the other stacks on this machine (stack-registry.ts) that use the same vault,
 * project and environment and reference the rotated name. The rotation recreated only the stack it ran
 * in; these keep the old value until they are recreated, so the report names them with the command.
 */
import type { ConnectionSettings } from '../client/settings.js'
import { otherStacks, recordStack } from '../stack/stack-registry.js'
import { loadStackForUsers, servicesUsing } from '../stack/stack-users.js'

export interface OtherStack {
  stackDir: string
  services: string[]
}

/** The scope a stack is recorded under. */
export function stackScope(settings: ConnectionSettings, environment: string | undefined) {
  return {
    domain: settings.domain ?? '',
    projectId: settings.projectId ?? '',
    environment: environment ?? '',
  }
}

/** Records this stack, then returns the other recorded stacks whose compose files use `name`. */
export async function stacksSharing(
  name: string,
  stackDir: string,
  scope: ReturnType<typeof stackScope>,
): Promise<OtherStack[]> {
  await recordStack(stackDir, scope)
  const found: OtherStack[] = []
  for (const directory of await otherStacks(stackDir, scope)) {
    const project = await loadStackForUsers({ stackDir: directory }).catch(() => undefined)
    if (!project || project.workingDir !== directory) continue
    const services = servicesUsing(project, [name])[name] ?? []
    if (services.length > 0) found.push({ stackDir: directory, services })
  }
  return found
}
