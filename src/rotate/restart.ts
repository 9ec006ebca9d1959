/**
 * The compose side of a rotation. Planned before anything changes: the services that reference the
 * secret (render's reference index) and the compose client, so a broken stack fails the rotation
 * early. Executed after the write: exactly those services are recreated with the vault's values in
 * compose's environment, then polled until each is ready (readiness.ts).
 */
import { NotFoundError } from '../errors.js'
import { buildChildEnvironment } from '../process/child-env.js'
import type { ComposeClient } from '../process/compose.js'

export interface RestartPlan {
  services: string[]
  /** Services whose environment has the name with a literal value (an env_file line): not recreated. */
  literalUsers: string[]
  client?: ComposeClient
  workingDir: string
  files: string[]
  /** The compose project name (`-p`), when the stack was started with one. */
  projectName?: string
  /** Secrets whose names control the host that may still reach compose (`--allow-env NAME`). */
  allowEnv?: readonly string[]
}

export interface ServiceReport {
  service: string
  containerId?: string
  status: string
  health?: string
  ok: boolean
  /** Why a service is not ready. */
  reason?: string
}

/** Finds the services that reference `name` and the compose client that will recreate them. */
export async function planRestart(options: {
  name: string
  /** Templates that name `name` (src/client/resolve-templates.ts): their users are recreated too. */
  through?: readonly string[]
  secrets: Record<string, string>
  stackDir: string
  composeFiles?: string[]
  profiles?: string[]
  /** The compose project name (`-p`); default: compose's (COMPOSE_PROJECT_NAME, `name:`, directory). */
  projectName?: string
  /** Secrets whose names control the host that may still reach compose (`--allow-env NAME`). */
  allowEnv?: readonly string[]
}): Promise<RestartPlan> {
  const { loadComposeProject, servicesOf, usersOf } = await import('../compose/index.js')
  const env = buildChildEnvironment(process.env, options.secrets, { allowEnv: options.allowEnv })
  const project = loadComposeProject({
    cwd: options.stackDir,
    files: options.composeFiles,
    profiles: options.profiles,
    projectName: options.projectName,
    environment: env,
    collectProblems: true,
  })
  const services = servicesOf(usersOf(project, options.name, options.through))
  const { serviceEnvironments } = await import('../stack/stack-users.js')
  const literalUsers = Object.entries(serviceEnvironments(project))
    .filter(
      ([service, environment]) => Object.hasOwn(environment, options.name) && !services.includes(service),
    )
    .map(([service]) => service)
  const plan = {
    services,
    literalUsers,
    workingDir: project.workingDir,
    files: project.files,
    projectName: options.projectName,
    allowEnv: options.allowEnv,
  }
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

export interface RestartOptions {
  /** Seconds to wait for the services to be ready. */
  waitSeconds: number
  /** Seconds a service without a health check must run without a restart. */
  stableSeconds: number
}

/**
 * Recreates the planned services with `secrets` in compose's environment and waits until they are
 * ready (see readiness.ts); a compose failure is reported as a failed restart with compose's message.
 */
export async function executeRestart(
  plan: RestartPlan,
  secrets: Record<string, string>,
  options: RestartOptions,
): Promise<{ services: ServiceReport[]; healthy: boolean; error?: string }> {
  if (plan.services.length === 0 || !plan.client) return { services: [], healthy: true }
  const compose = await import('../process/compose.js')
  const { waitUntilReady } = await import('./readiness.js')
  const env = buildChildEnvironment(process.env, secrets, { allowEnv: plan.allowEnv })
  const target = {
    client: plan.client,
    cwd: plan.workingDir,
    files: plan.files,
    projectName: plan.projectName,
    env,
    secretValues: Object.values(secrets),
  }
  let readiness: Awaited<ReturnType<typeof waitUntilReady>>
  try {
    await compose.recreateServices(target, plan.services)
    const ids = await compose.serviceContainerIds(target, plan.services)
    readiness = await waitUntilReady({
      services: plan.services,
      probe: () => compose.inspectContainers(target, ids),
      stableMs: options.stableSeconds * 1000,
      timeoutMs: options.waitSeconds * 1000,
    })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const services = plan.services.map((service) => ({ service, status: 'unknown', ok: false }))
    return { services, healthy: false, error: message }
  }
  const services = readiness.services.map((entry): ServiceReport => ({
    service: entry.service,
    containerId: entry.containerId,
    status: entry.status,
    health: entry.health,
    ok: entry.verdict === 'ready',
    reason: entry.reason,
  }))
  return { services, healthy: readiness.ready }
}
