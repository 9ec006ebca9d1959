/**
 * The model `docker compose config` (compose v2) prints, made from a loaded project's model: what
 * compose-go's canonical transforms, defaults and `Normalize` add on top of what the loader keeps
 * (volumes and secrets in long syntax with their defaults, implicit `depends_on` entries, the
 * default network, resource names `<project>_<key>`, `build` defaults, the project `name`), with
 * keys in the order compose-go's types print them. The loaded model itself is left as it is: the
 * other commands, masking and `--format source` work on it.
 */
import { asRecord, setEntry } from './interpolate-model.js'
import { longVolume } from './normalize-volumes.js'

type Model = Record<string, unknown>

export interface ComposeV2Options {
  projectName: string
  /** The project directory (a `build` without `context` builds there). */
  workingDir: string
  /** JSON drops the `x-` fields below the top level, as compose-go's JSON encoding does. */
  json?: boolean
}

/** The field order of compose-go's `ServiceConfig` (unknown and `x-` keys go last, sorted). */
const serviceKeys = (
  'name profiles annotations attach build develop blkio_config cap_add cap_drop cgroup_parent cgroup cpu_count ' +
  'cpu_percent cpu_period cpu_quota cpu_rt_period cpu_rt_runtime cpus cpuset cpu_shares command configs ' +
  'container_name credential_spec depends_on deploy device_cgroup_rules devices dns dns_opt dns_search ' +
  'dockerfile domainname entrypoint provider environment env_file expose extends external_links extra_hosts ' +
  'group_add gpus hostname healthcheck image init ipc isolation labels label_file links logging log_driver ' +
  'log_opt mem_limit mem_reservation memswap_limit mem_swappiness mac_address models net network_mode ' +
  'networks oom_kill_disable oom_score_adj pid pids_limit platform ports privileged pull_policy read_only ' +
  'restart runtime scale secrets security_opt shm_size stdin_open stop_grace_period stop_signal storage_opt ' +
  'sysctls tmpfs tty ulimits use_api_socket user userns_mode uts volume_driver volumes volumes_from ' +
  'working_dir pre_start post_start pre_stop'
).split(' ')
const serviceRank = new Map(serviceKeys.map((key, index) => [key, index]))
const topLevelKeys = ['name', 'services', 'networks', 'volumes', 'secrets', 'configs', 'models']
const resourceSections = ['networks', 'volumes', 'secrets', 'configs']
const sharedNamespaces = ['network_mode', 'ipc', 'pid', 'uts', 'cgroup']

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A copy of `record` with `first` keys in that order, then the others sorted. */
function ordered(record: Model, first: readonly string[]): Model {
  const result: Model = {}
  for (const key of first)
    if (Object.hasOwn(record, key) && record[key] !== undefined) result[key] = record[key]
  for (const key of Object.keys(record).sort(byName))
    if (!Object.hasOwn(result, key)) setEntry(result, key, record[key])
  return result
}

function orderedService(service: Model): Model {
  const rank = (key: string) => serviceRank.get(key) ?? serviceKeys.length
  const result: Model = {}
  for (const key of Object.keys(service).sort((a, b) => rank(a) - rank(b) || byName(a, b)))
    setEntry(result, key, service[key])
  return result
}

function isRecord(value: unknown): value is Model {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** `depends_on` with compose-go's implicit entries (links, `service:` namespaces, `volumes_from`). */
function dependsOn(service: Model): Model | undefined {
  const dependencies: Model = { ...asRecord(service.depends_on) }
  const implicit = (name: string, restart: boolean) => {
    if (!Object.hasOwn(dependencies, name))
      setEntry(dependencies, name, { condition: 'service_started', restart, required: true })
  }
  for (const link of Array.isArray(service.links) ? service.links : []) {
    const parts = String(link).split(':')
    implicit(parts.length === 2 ? parts[0]! : String(link), true)
  }
  for (const namespace of sharedNamespaces) {
    const value = service[namespace]
    if (typeof value === 'string' && value.startsWith('service:')) implicit(value.slice(8), true)
  }
  for (const source of Array.isArray(service.volumes_from) ? service.volumes_from : []) {
    const text = String(source)
    if (!text.startsWith('container:')) implicit(text.split(':')[0]!, false)
  }
  const names = Object.keys(dependencies).sort(byName)
  if (names.length === 0) return undefined
  return Object.fromEntries(
    names.map((name) => {
      const entry = { ...asRecord(dependencies[name]) }
      if (entry.restart === false) delete entry.restart
      return [name, ordered(entry, ['condition', 'restart'])]
    }),
  )
}

function secretMount(entry: unknown): unknown {
  if (!isRecord(entry)) return entry
  const target = entry.target ?? `/run/secrets/${String(entry.source)}`
  return ordered({ ...entry, target }, ['source', 'target', 'uid', 'gid', 'mode'])
}

function build(value: unknown, workingDir: string): unknown {
  if (!isRecord(value)) return value
  const result: Model = { ...value, context: value.context ?? workingDir }
  if (result.dockerfile === undefined && result.dockerfile_inline === undefined)
    result.dockerfile = 'Dockerfile'
  return ordered(result, ['context', 'dockerfile', 'dockerfile_inline'])
}

/** Whether the service is attached to the default network (then it is added to its `networks`). */
function joinsDefault(service: Model): boolean {
  if (service.provider !== undefined || service.network_mode !== undefined) return false
  return !isRecord(service.networks) || Object.keys(service.networks).length === 0
}

function v2Service(service: Model, options: ComposeV2Options): Model {
  const result: Model = { ...service }
  if (service.build !== undefined) result.build = build(service.build, options.workingDir)
  if (service.pull_policy === 'if_not_present') result.pull_policy = 'missing'
  if (Array.isArray(service.volumes)) result.volumes = service.volumes.map(longVolume)
  if (Array.isArray(service.secrets)) result.secrets = service.secrets.map(secretMount)
  const dependencies = dependsOn(service)
  if (dependencies) result.depends_on = dependencies
  if (joinsDefault(service)) result.networks = { default: null }
  else if (isRecord(service.networks)) result.networks = ordered(service.networks, [])
  return orderedService(result)
}

/** A top-level network/volume/secret/config with its name (`<project>_<key>`, or the key when external). */
function namedResource(key: string, spec: unknown, projectName: string): Model {
  const resource: Model = { ...asRecord(spec) }
  if (isRecord(resource.external)) {
    const legacyName = resource.external.name
    resource.external = true
    if (resource.name === undefined && legacyName !== undefined) resource.name = legacyName
  }
  if (resource.name === undefined) resource.name = resource.external === true ? key : `${projectName}_${key}`
  return ordered(resource, ['name'])
}

function withoutNestedExtensions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNestedExtensions)
  if (!isRecord(node)) return node
  const entries = Object.entries(node).filter(([key]) => !key.startsWith('x-'))
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutNestedExtensions(value)]))
}

/** The model as compose v2 prints it (see the module header); `model` is not changed. */
export function composeV2Model(model: Model, options: ComposeV2Options): Model {
  const services: Model = {}
  let usesDefault = false
  for (const [name, spec] of Object.entries(asRecord(model.services))) {
    const service = v2Service(asRecord(spec), options)
    if (isRecord(service.networks) && Object.hasOwn(service.networks, 'default')) usesDefault = true
    setEntry(services, name, options.json ? withoutNestedExtensions(service) : service)
  }
  const result: Model = { ...model, name: options.projectName, services }
  if (usesDefault && !Object.hasOwn(asRecord(model.networks), 'default'))
    result.networks = { ...asRecord(model.networks), default: null }
  for (const section of resourceSections) {
    if (!isRecord(result[section])) continue
    const resources = Object.entries(result[section]).map(([key, spec]) => {
      const resource = namedResource(key, spec, options.projectName)
      return [key, options.json ? withoutNestedExtensions(resource) : resource]
    })
    result[section] = Object.fromEntries(resources.sort(([a], [b]) => byName(String(a), String(b))))
  }
  return ordered(result, topLevelKeys)
}
