/**
 * Test helper: a third-party compose stack as the private engine can run it (busybox, network_mode none,
 * no ports, volumes, networks, users or health gates; environment and secrets untouched), and what each of
 * its containers received (Config.Env by service).
 */
import { execFileSync } from 'node:child_process'
import { parse, stringify } from 'yaml'

/** A command that keeps a busybox container up and ends on TERM. */
export const keepAlive = ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1; done"]

/** Service keys the private engine cannot honour without a registry, a network or the image's users. */
const dropped = [
  'ports',
  'expose',
  'volumes',
  'container_name',
  'restart',
  'healthcheck',
  'shm_size',
  'networks',
  'depends_on',
  'user',
  'read_only',
  'security_opt',
  'ulimits',
]

/** The stack rewritten for the private engine: every service runs `image` with keepAlive and no network. */
export function forPrivateEngine(text: string, image: string): string {
  const model = parse(text, { merge: true }) as {
    name?: string
    services: Record<string, Record<string, unknown>>
    volumes?: unknown
    networks?: unknown
  }
  for (const service of Object.values(model.services)) {
    Object.assign(service, { image, command: keepAlive, network_mode: 'none' })
    delete service.entrypoint
    for (const key of dropped) delete service[key]
  }
  delete model.volumes
  delete model.networks
  delete model.name // docker-compose 1.29, the client here, refuses a top-level name (COMPOSE_PROJECT_NAME is set)
  return stringify(model, { aliasDuplicateObjects: false })
}

/** Every running container of a compose project: its environment (Config.Env) by service. */
export function containerEnvironments(
  dockerHost: string,
  project: string,
): Record<string, Record<string, string>> {
  const docker = (...args: string[]) =>
    execFileSync('docker', args, { env: { PATH: process.env.PATH, DOCKER_HOST: dockerHost } }).toString(
      'utf8',
    )
  const ids = docker('ps', '-q', '--no-trunc', '--filter', `label=com.docker.compose.project=${project}`)
    .split('\n')
    .filter(Boolean)
  if (ids.length === 0) return {}
  const inspected = JSON.parse(docker('inspect', ...ids)) as {
    Config: { Env: string[]; Labels: Record<string, string> }
  }[]
  return Object.fromEntries(
    inspected.map((container) => [
      container.Config.Labels['com.docker.compose.service']!,
      Object.fromEntries(
        container.Config.Env.map((entry) => [entry.split('=')[0]!, entry.slice(entry.indexOf('=') + 1)]),
      ),
    ]),
  )
}

/** What a service's container holds at `path` (a mounted secret file), read with `docker exec cat`. */
export function containerFile(dockerHost: string, project: string, service: string, path: string): string {
  const docker = (...args: string[]) =>
    execFileSync('docker', args, { env: { PATH: process.env.PATH, DOCKER_HOST: dockerHost } }).toString(
      'utf8',
    )
  const id = docker(
    'ps',
    '-q',
    '--filter',
    `label=com.docker.compose.project=${project}`,
    '--filter',
    `label=com.docker.compose.service=${service}`,
  ).trim()
  return docker('exec', id, 'cat', path)
}
