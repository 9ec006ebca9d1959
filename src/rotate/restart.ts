/**
 * The compose side of a rotation. Planned before anything changes: the services that reference the
 * secret (render's reference index) and the compose client, so a broken stack fails the rotation
 * early. Executed after the write: exactly those services are recreated with the vault's values in
 * compose's environment, then polled until each is running (healthy when it has a health check).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { NotFoundError } from '../errors.js'
import { buildChildEnvironment } from '../process/child-env.js'
import type { ComposeClient, ContainerState } from '../process/compose.js'

export interface RestartPlan {
  services: string[]
  client?: ComposeClient
  workingDir: string
  files: string[]
}

export interface ServiceReport {
  service: string
  containerId?: string
  status: string
  health?: string
  ok: boolean
}

/** Finds the services that reference `name` and the compose client that will recreate them. */
export async function planRestart(options: {
  name: string
  secrets: Record<string, string>
  stackDir: string
  composeFiles?: string[]
}): Promise<RestartPlan> {
  const { findReferences, loadComposeProject } = await import('../compose/index.js')
  const env = buildChildEnvironment(process.env, options.secrets)
  const project = loadComposeProject({
    cwd: options.stackDir,
    files: options.composeFiles,
    environment: env,
    collectProblems: true,
  })
  const { servicesUsingSecretSource } = await import('../run/compose-secret-files.js')
  const services = [
    ...new Set([
      ...findReferences(project, options.name)
        .map((site) => site.service)
        .filter(Boolean),
      ...servicesUsingSecretSource(project.model, options.name),
    ]),
  ].sort()
  const plan = { services, workingDir: project.workingDir, files: project.files }
  if (services.length === 0) return plan
  const { detectComposeClient } = await import('../process/compose.js')
  const client = await detectComposeClient(env)
  if (!client) {
    throw new NotFoundError(
      'no compose client found (neither `docker compose` nor `docker-compose`): nothing was changed',
      {
        hint: 'install one, or pass --no-restart and recreate the services yourself',
      },
    )
  }
  return { ...plan, client }
}

/** Recreates the planned services with `secrets` in compose's environment and reports their state. */
export async function executeRestart(
  plan: RestartPlan,
  secrets: Record<string, string>,
  waitSeconds: number,
): Promise<{ services: ServiceReport[]; healthy: boolean }> {
  if (plan.services.length === 0 || !plan.client) return { services: [], healthy: true }
  const compose = await import('../process/compose.js')
  const env = buildChildEnvironment(process.env, secrets)
  const target = {
    client: plan.client,
    cwd: plan.workingDir,
    files: plan.files,
    env,
    secretValues: Object.values(secrets),
  }
  await compose.recreateServices(target, plan.services)
  const deadline = Date.now() + waitSeconds * 1000
  let states: ContainerState[] = []
  for (;;) {
    states = await compose.serviceStates(target, plan.services)
    const settled = plan.services.every((service) =>
      states.some((state) => state.service === service && isUp(state)),
    )
    if (settled || Date.now() >= deadline) break
    await sleep(500)
  }
  const reports = plan.services.map((service): ServiceReport => {
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
