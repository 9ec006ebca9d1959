/**
 * After a rotation: the compose services that reference the secret (render's reference index) are
 * recreated, and only those, with the vault's values in compose's environment; then their state is
 * polled until each is running (healthy when it has a health check) or the wait runs out.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { NotFoundError } from '../errors.js'
import { buildChildEnvironment } from '../process/child-env.js'
import type { ContainerState } from '../process/compose.js'

export interface RestartOptions {
  name: string
  secrets: Record<string, string>
  stackDir: string
  composeFiles?: string[]
  waitSeconds: number
  note: (line: string) => void
}

export interface ServiceReport {
  service: string
  containerId?: string
  status: string
  health?: string
  ok: boolean
}

/** Recreates the services that reference `name` and reports their state. */
export async function restartReferencingServices(
  options: RestartOptions,
): Promise<{ services: ServiceReport[]; healthy: boolean }> {
  const { findReferences, loadComposeProject } = await import('../compose/index.js')
  const env = buildChildEnvironment(process.env, options.secrets)
  const project = loadComposeProject({
    cwd: options.stackDir,
    files: options.composeFiles,
    environment: env,
    collectProblems: true,
  })
  const services = [
    ...new Set(
      findReferences(project, options.name)
        .map((site) => site.service)
        .filter(Boolean),
    ),
  ].sort()
  if (services.length === 0) {
    options.note(`no compose service references ${options.name}: nothing to recreate`)
    return { services: [], healthy: true }
  }
  const compose = await import('../process/compose.js')
  const client = await compose.detectComposeClient(env)
  if (!client) {
    throw new NotFoundError('no compose client found (neither `docker compose` nor `docker-compose`)', {
      hint: `the vault holds the new value; recreate ${services.join(', ')} yourself (compose up -d --no-deps)`,
    })
  }
  const target = {
    client,
    cwd: project.workingDir,
    files: project.files,
    env,
    secretValues: Object.values(options.secrets),
  }
  options.note(
    `recreating ${services.join(', ')} with ${client.version === 'v2' ? 'docker compose' : 'docker-compose'}`,
  )
  await compose.recreateServices(target, services)
  const deadline = Date.now() + options.waitSeconds * 1000
  let states: ContainerState[] = []
  for (;;) {
    states = await compose.serviceStates(target, services)
    const settled = services.every((service) =>
      states.some((state) => state.service === service && isUp(state)),
    )
    if (settled || Date.now() >= deadline) break
    await sleep(500)
  }
  const reports = services.map((service): ServiceReport => {
    const state = states.find((entry) => entry.service === service)
    return {
      service,
      containerId: state?.id,
      status: state?.status ?? 'missing',
      health: state?.health,
      ok: state ? isUp(state) : false,
    }
  })
  return { services: reports, healthy: reports.every((report) => report.ok) }
}

function isUp(state: ContainerState): boolean {
  return state.status === 'running' && (state.health === undefined || state.health === 'healthy')
}
