/**
 * The keys compose v1 (docker-compose 1.29, the client of Debian 12) refuses: its schema
 * (`compose/config/compose_spec.json` of 1.29.2) knows neither compose v2's newer keys (top-level
 * `name` and `include`, `depends_on.*.required`, `develop`, `gpus`, long `env_file`, a port's
 * `host_ip`, ...) nor anything outside its lists. `render --check` reports each with its file and
 * line when the client found is v1, so `rotate` does not fail at `up`. A secret's `environment:` source
 * is accepted: the stack runs through `vault run`, which rewrites it for v1.
 */
import { located } from './errors.js'
import { childPath } from './fast-yaml.js'
import type { ComposeProblem } from './types.js'
import { lineOf } from './yaml-source.js'

type Model = Record<string, unknown>

const serviceKeys =
  'blkio_config build cap_add cap_drop cgroup_parent command configs container_name cpu_count cpu_percent ' +
  'cpu_period cpu_quota cpu_rt_period cpu_rt_runtime cpu_shares cpus cpuset credential_spec depends_on ' +
  'deploy device_cgroup_rules devices dns dns_opt dns_search domainname entrypoint env_file environment ' +
  'expose extends external_links extra_hosts group_add healthcheck hostname image init ipc isolation ' +
  'labels links logging mac_address mem_limit mem_reservation mem_swappiness memswap_limit network_mode ' +
  'networks oom_kill_disable oom_score_adj pid pids_limit platform ports privileged profiles pull_policy ' +
  'read_only restart runtime scale secrets security_opt shm_size stdin_open stop_grace_period stop_signal ' +
  'storage_opt sysctls tmpfs tty ulimits user userns_mode volumes volumes_from working_dir'

/** The keys v1 accepts in each kind of mapping (`x-` keys are accepted everywhere v1 allows them). */
const allowed: Record<string, Set<string>> = Object.fromEntries(
  Object.entries({
    top: 'version services networks volumes secrets configs',
    service: serviceKeys,
    build: 'context dockerfile args labels cache_from network target shm_size extra_hosts isolation',
    dependency: 'condition',
    healthcheck: 'disable interval retries start_period test timeout',
    deploy:
      'endpoint_mode labels mode placement replicas resources restart_policy rollback_config update_config',
    port: 'mode target published protocol',
    volume: 'type source target read_only consistency bind volume tmpfs',
    fileMount: 'source target uid gid mode',
    serviceNetwork: 'aliases ipv4_address ipv6_address link_local_ips priority',
    logging: 'driver options',
    network: 'attachable driver driver_opts enable_ipv6 external internal ipam labels name',
    namedVolume: 'driver driver_opts external labels name',
    // `environment` is compose v2's; `vault run` hands it to v1 as a `file:` source (compose-secret-files.ts).
    secret: 'driver driver_opts environment external file labels name template_driver',
    config: 'external file labels name template_driver',
  }).map(([kind, keys]) => [kind, new Set(keys.split(' '))]),
)

/** One mapping to check: what kind it is and its path in the file. */
interface Place {
  value: unknown
  kind: string
  path: string
}

function record(value: unknown): Model | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Model) : undefined
}

function listItems(value: unknown, path: string, kind: string): Place[] {
  return Array.isArray(value)
    ? value.map((item, index) => ({ value: item, kind, path: childPath(path, index) }))
    : []
}

function mapValues(value: unknown, path: string, kind: string): Place[] {
  return Object.entries(record(value) ?? {}).map(([key, item]) => ({
    value: item,
    kind,
    path: childPath(path, key),
  }))
}

/** The nested mappings of a service that v1 checks key by key. */
function servicePlaces(service: Model, path: string): Place[] {
  const at = (key: string) => childPath(path, key)
  return [
    { value: service.build, kind: 'build', path: at('build') },
    { value: service.healthcheck, kind: 'healthcheck', path: at('healthcheck') },
    { value: service.deploy, kind: 'deploy', path: at('deploy') },
    { value: service.logging, kind: 'logging', path: at('logging') },
    ...mapValues(service.depends_on, at('depends_on'), 'dependency'),
    ...mapValues(service.networks, at('networks'), 'serviceNetwork'),
    ...listItems(service.ports, at('ports'), 'port'),
    ...listItems(service.volumes, at('volumes'), 'volume'),
    ...listItems(service.secrets, at('secrets'), 'fileMount'),
    ...listItems(service.configs, at('configs'), 'fileMount'),
  ]
}

function refusedKeys(place: Place): string[] {
  const mapping = record(place.value)
  const keys = allowed[place.kind]
  if (!mapping || !keys) return []
  return Object.keys(mapping)
    .filter((key) => !keys.has(key) && !key.startsWith('x-'))
    .map((key) => childPath(place.path, key))
}

/** Every key of one compose file (interpolated model) that docker-compose 1.29 refuses. */
export function findV1RefusedKeys(model: Model, file: string, lines: Map<string, number>): ComposeProblem[] {
  const paths: string[] = refusedKeys({ value: model, kind: 'top', path: '' })
  for (const [name, service] of Object.entries(record(model.services) ?? {})) {
    const path = childPath('services', name)
    const mapping = record(service) ?? {}
    paths.push(...refusedKeys({ value: mapping, kind: 'service', path }))
    for (const place of servicePlaces(mapping, path)) paths.push(...refusedKeys(place))
    const envFiles = Array.isArray(mapping.env_file) ? mapping.env_file : []
    envFiles.forEach((entry, index) => {
      if (record(entry)) paths.push(childPath(childPath(path, 'env_file'), index))
    })
  }
  const sections: [string, string][] = [
    ['networks', 'network'],
    ['volumes', 'namedVolume'],
    ['secrets', 'secret'],
    ['configs', 'config'],
  ]
  for (const [section, kind] of sections)
    for (const place of mapValues(model[section], section, kind)) paths.push(...refusedKeys(place))
  return paths.map((path) => {
    const line = lineOf(lines, path)
    const message = `${path} is not supported by docker-compose v1 (1.29): install compose v2 or remove it`
    return { level: 'error', code: 'v1_refused_key', message: located(file, line, message), file, line }
  })
}
