/**
 * The compose client of this machine: `docker compose` (the v2 plugin) when present, else
 * `docker-compose` (v1). Recreating services, listing their containers and reading their state.
 * Secret values reach compose through its environment, never its command line.
 */
import { UnreachableError } from '../errors.js'
import { redactValues } from '../ui/redact.js'

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
  /** The environment compose runs with (where interpolated secrets come from). */
  env: Record<string, string>
  /** Values redacted from compose's messages before they are shown. */
  secretValues?: string[]
}

export interface ContainerState {
  service: string
  id: string
  /** `running`, `exited`, ... */
  status: string
  /** `healthy`, `unhealthy`, `starting`, or undefined without a health check. */
  health?: string
}

/** Finds the compose client: the v2 plugin first, then v1; null when neither answers. */
export async function detectComposeClient(
  env: NodeJS.ProcessEnv = process.env,
): Promise<ComposeClient | null> {
  const { execa } = await import('execa')
  const candidates: ComposeClient[] = [
    { command: 'docker', prefix: ['compose'], version: 'v2' },
    { command: 'docker-compose', prefix: [], version: 'v1' },
  ]
  for (const client of candidates) {
    const result = await execa(client.command, [...client.prefix, 'version'], {
      env,
      reject: false,
      stdin: 'ignore',
      timeout: 20_000,
    })
    if (result.exitCode === 0) return client
  }
  return null
}

/** Recreates exactly `services` (`up -d --no-deps --force-recreate <services>`). */
export async function recreateServices(target: ComposeTarget, services: string[]): Promise<void> {
  if (services.length === 0) return
  await compose(target, ['up', '-d', '--no-deps', '--force-recreate', ...services])
}

/** The containers of `services` with their state (`compose ps` per service, `docker inspect` per container). */
export async function serviceStates(target: ComposeTarget, services: string[]): Promise<ContainerState[]> {
  const states: ContainerState[] = []
  for (const service of services) {
    const ids = (await compose(target, ['ps', '-q', service])).split('\n').filter(Boolean)
    for (const id of ids) states.push({ service, id, ...(await inspectState(target, id)) })
  }
  return states
}

async function inspectState(target: ComposeTarget, id: string): Promise<{ status: string; health?: string }> {
  const { execa } = await import('execa')
  const format = '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}'
  const result = await execa('docker', ['inspect', '--format', format, id], {
    env: target.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  })
  if (result.exitCode !== 0) return { status: 'missing' }
  const [status = 'unknown', health] = result.stdout.trim().split(' ')
  return { status, health: health || undefined }
}

async function compose(target: ComposeTarget, args: string[]): Promise<string> {
  const { execa } = await import('execa')
  const fileArgs = (target.files ?? []).flatMap((file) => ['-f', file])
  let composeArgs = [...fileArgs, ...args]
  if (target.client.version === 'v1') {
    const { composeV1Args } = await import('../run/compose-secret-files.js')
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
      redactValues(lastLine(String(result.stderr)), target.secretValues ?? []) ||
      `exit code ${result.exitCode}`
    throw new UnreachableError(`compose ${args[0]} failed: ${detail}`, {
      hint: 'check that the engine is reachable (DOCKER_HOST) and the compose files are valid',
    })
  }
  return String(result.stdout)
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.slice(0, 300) ?? ''
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
