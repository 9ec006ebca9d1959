/**
 * The compose client of this machine: `docker compose` (the v2 plugin) when present, else
 * `docker-compose` (v1). Recreating services, listing their containers and reading their state.
 * Secret values reach compose through its environment, never its command line.
 */
import { UnreachableError } from '../errors.js'
import { redactValues } from '../text/mask-text.js'

export interface ComposeClient {
  /** The program and the arguments before compose's own (`docker` + `compose`, or `docker-compose`). */
  command: string
  prefix: string[]
  version: 'v2' | 'v1'
}

export interface ComposeTarget {
  client: ComposeClient
  /** The project directory (where the compose files are). */
  cwd: string
  /** Compose files (`-f`), in order; empty for compose's defaults. */
  files?: string[]
  /** The project name (`-p`); default: compose's own choice (COMPOSE_PROJECT_NAME, `name:`, directory). */
  projectName?: string
  /** The environment compose runs with (where interpolated secrets come from). */
  env: Record<string, string>
  /** Values redacted from compose's messages before they are shown. */
  secretValues?: string[]
}

/** One container's state, as one `docker inspect` of all of them reports it. */
export interface ContainerStatus {
  /** The compose service (label com.docker.compose.service). */
  service: string
  id: string
  /** `running`, `exited`, `restarting`, ... */
  status: string
  /** `healthy`, `unhealthy`, `starting`, or undefined without a health check. */
  health?: string
  restarts: number
  startedAt: string
}

const composeV2: ComposeClient = { command: 'docker', prefix: ['compose'], version: 'v2' }
const composeV1: ComposeClient = { command: 'docker-compose', prefix: [], version: 'v1' }

/**
 * Finds the compose client: the v2 plugin when `docker compose version` answers, else v1 when
 * `docker-compose` is on PATH (found, not run: the Python client spends about 0.5 s of CPU starting,
 * on every rotate, restore and `render --check`; `composeClientAnswers` asks it); null when neither.
 */
export async function detectComposeClient(
  env: NodeJS.ProcessEnv = process.env,
): Promise<ComposeClient | null> {
  if (await composeClientAnswers(composeV2, env)) return composeV2
  const { executableOnPath } = await import('./executable-path.js')
  return executableOnPath(composeV1.command, env) ? composeV1 : null
}

/** Whether `client` answers `version` (exit 0). */
export async function composeClientAnswers(
  client: ComposeClient,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const { execa } = await import('execa')
  const result = await execa(client.command, [...client.prefix, 'version'], {
    env,
    reject: false,
    stdin: 'ignore',
    timeout: 20_000,
  })
  return result.exitCode === 0
}

/** Recreates exactly `services` (`up -d --no-deps --force-recreate <services>`). */
export async function recreateServices(target: ComposeTarget, services: string[]): Promise<void> {
  if (services.length === 0) return
  await compose(target, ['up', '-d', '--no-deps', '--force-recreate', ...services])
}

/** The container ids of `services`: one `compose ps -q` for all of them. */
export async function serviceContainerIds(target: ComposeTarget, services: string[]): Promise<string[]> {
  if (services.length === 0) return []
  return (await compose(target, ['ps', '-q', ...services])).split('\n').filter(Boolean)
}

interface InspectedContainer {
  Id?: string
  RestartCount?: number
  Config?: { Labels?: Record<string, string> | null }
  State?: { Status?: string; StartedAt?: string; Health?: { Status?: string } | null }
}

/** The state of every container in `ids`: one `docker inspect` (its JSON); a container gone is left out. */
export async function inspectContainers(target: ComposeTarget, ids: string[]): Promise<ContainerStatus[]> {
  if (ids.length === 0) return []
  const { execa } = await import('execa')
  const result = await execa('docker', ['inspect', ...ids], {
    env: target.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  })
  let containers: InspectedContainer[]
  try {
    containers = JSON.parse(String(result.stdout) || '[]') as InspectedContainer[]
  } catch {
    return []
  }
  return containers.map((container) => ({
    id: container.Id ?? '',
    service: container.Config?.Labels?.['com.docker.compose.service'] ?? '',
    status: container.State?.Status ?? 'unknown',
    health: container.State?.Health?.Status || undefined,
    restarts: container.RestartCount ?? 0,
    startedAt: container.State?.StartedAt ?? '',
  }))
}

/** Compose's global options for the target: `-p NAME` when named, then `-f FILE` for each file. */
function globalArgs(target: ComposeTarget): string[] {
  const project = target.projectName ? ['-p', target.projectName] : []
  return [...project, ...(target.files ?? []).flatMap((file) => ['-f', file])]
}

async function compose(target: ComposeTarget, args: string[]): Promise<string> {
  const { execa } = await import('execa')
  let composeArgs = [...globalArgs(target), ...args]
  if (target.client.version === 'v1') {
    const { composeV1Args } = await import('./compose-secret-files.js')
    composeArgs = await composeV1Args(composeArgs, target.cwd, target.env)
  }
  const result = await execa(target.client.command, [...target.client.prefix, ...composeArgs], {
    cwd: target.cwd,
    env: target.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 300_000,
  })
  if (result.exitCode !== 0) {
    const detail =
      redactValues(String(result.stderr).trim().slice(-8000), target.secretValues ?? []) ||
      `exit code ${result.exitCode}`
    throw new UnreachableError(`compose ${args[0]} failed:\n${detail}`, {
      hint: 'check that the engine is reachable (DOCKER_HOST) and the compose files are valid',
    })
  }
  return String(result.stdout)
}

/** Stops `services` without removing their containers (`stop <services>`); used by `vault restore --compose`. */
export async function stopServices(target: ComposeTarget, services: string[]): Promise<void> {
  if (services.length === 0) return
  await compose(target, ['stop', ...services])
}

/** Starts exactly `services`, creating them when needed (`up -d --no-deps <services>`); used by `vault restore --compose`. */
export async function startServices(target: ComposeTarget, services: string[]): Promise<void> {
  if (services.length === 0) return
  await compose(target, ['up', '-d', '--no-deps', ...services])
}

/** Runs `argv` inside `service` (`exec -T`) with `input` on stdin; resolves with its exit code and output. */
export async function execInService(
  target: ComposeTarget,
  service: string,
  argv: string[],
  input: string,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const { execa } = await import('execa')
  const result = await execa(
    target.client.command,
    [...target.client.prefix, ...globalArgs(target), 'exec', '-T', service, ...argv],
    { cwd: target.cwd, env: target.env, extendEnv: false, reject: false, input, timeout: 120_000 },
  )
  const redact = (text: unknown) => redactValues(String(text ?? ''), target.secretValues ?? [])
  return {
    exitCode: result.exitCode ?? 1,
    stdout: String(result.stdout ?? ''),
    stderr: redact(result.stderr),
  }
}
