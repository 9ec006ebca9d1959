/**
 * Builds a compose policy (policy.ts) from compose files with vault's own compose loader, the one
 * `vault render` uses (src/compose/): interpolation from the proxy's environment and the project's
 * `.env`, `include`, `extends`, bind sources resolved against the project directory. Every service of
 * every profile is in the policy unless COMPOSE_PROFILES narrows it (the policy says what may be
 * created; `--profile` chooses what is). What is read of each service: the settings that reach the host
 * (policy.ts), its published ports (declared-ports.ts) and what its names resolve to (declared-lookups.ts). A file that does not load stops the proxy with a UsageError naming it.
 */
import { posix } from 'node:path'
import { loadComposeProject } from '../../compose/load.js'
import { longVolume, cleanPath } from '../../compose/normalize-volumes.js'
import { UsageError, VaultError } from '../../errors.js'
import { normalizeCapability } from '../body-guard.js'
import { pathSeparator } from '../settings.js'
import { declaredLookups } from './declared-lookups.js'
import { declaredPorts } from './declared-ports.js'
import { policyFiles } from './policy-files.js'
import {
  imageForms,
  ipamKey,
  type ComposePolicy,
  type DeclaredMount,
  type DeclaredObject,
  type NamespaceField,
  type ServicePolicy,
} from './policy.js'

type Model = Record<string, unknown>

const record = (value: unknown): Model =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Model) : {}
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined
const entries = (value: unknown): [string, unknown][] => Object.entries(record(value))

/** `driver_opts` (or `labels`-like) maps and `KEY=VALUE` lists as a Map of strings. */
function stringMap(value: unknown): Map<string, string> {
  if (Array.isArray(value))
    return new Map(
      value.map(String).map((item) => {
        const equals = item.indexOf('=')
        return equals === -1 ? [item, ''] : [item.slice(0, equals), item.slice(equals + 1)]
      }),
    )
  return new Map(entries(value).map(([key, item]) => [key, text(item) ?? '']))
}

/** The networks or volumes of the file that compose creates (not `external`), by key, with engine names. */
function declaredObjects(
  section: unknown,
  project: string,
): Map<string, DeclaredObject & { external: boolean }> {
  const objects = new Map<string, DeclaredObject & { external: boolean }>()
  for (const [key, raw] of entries(section)) {
    const spec = record(raw)
    const external = spec.external === true || (spec.external !== null && typeof spec.external === 'object')
    const name = text(spec.name) ?? (external ? key : `${project}_${key}`)
    objects.set(key, {
      key,
      name,
      driver: text(spec.driver) ?? '',
      options: stringMap(spec.driver_opts),
      ipam: new Set(
        list(record(spec.ipam).config).map((entry) => {
          const config = record(entry)
          return ipamKey(text(config.subnet), text(config.ip_range), text(config.gateway))
        }),
      ),
      external,
    })
  }
  return objects
}

function mountOf(entry: unknown, volumeName: (key: string) => string): DeclaredMount | undefined {
  const long = record(longVolume(entry))
  const type = long.type
  if (type !== 'bind' && type !== 'volume' && type !== 'tmpfs') return undefined
  const source = text(long.source) ?? ''
  return {
    type,
    source:
      type === 'bind'
        ? cleanPath(posix.resolve('/', source))
        : type === 'volume' && source
          ? volumeName(source)
          : '',
    target: cleanPath(text(long.target) ?? ''),
    readOnly: long.read_only === true,
  }
}

function devicesOf(value: unknown): { host: string; container: string }[] {
  return list(value).flatMap((device) => {
    if (typeof device === 'string') {
      const [host = '', container] = device.split(':')
      return [{ host: cleanPath(host), container: cleanPath(container ?? host) }]
    }
    const spec = record(device)
    const host = text(spec.source)
    return host === undefined
      ? []
      : [{ host: cleanPath(host), container: cleanPath(text(spec.target) ?? host) }]
  })
}

const namespaceKeys: [NamespaceField, string][] = [
  ['PidMode', 'pid'],
  ['IpcMode', 'ipc'],
  ['UTSMode', 'uts'],
  ['UsernsMode', 'userns_mode'],
  ['CgroupnsMode', 'cgroup'],
]

interface ProjectNames {
  project: string
  networkName: (key: string) => string
  volumeName: (key: string) => string
  /** The host file of a top-level `secrets` or `configs` entry with `file:` (absolute), if it has one. */
  fileOf: (section: 'secrets' | 'configs', key: string) => string | undefined
  /** A service's `container_name`, if it sets one. */
  containerName: (service: string) => string | undefined
}

/** `secrets:` and `configs:` with a file: compose binds the file, read-only, at its target. */
function fileMounts(service: Model, names: ProjectNames): DeclaredMount[] {
  return (['secrets', 'configs'] as const).flatMap((section) =>
    list(service[section]).flatMap((entry) => {
      const spec = typeof entry === 'string' ? { source: entry } : record(entry)
      const key = text(spec.source) ?? ''
      const file = names.fileOf(section, key)
      if (file === undefined) return []
      const target = text(spec.target) ?? key
      const base = section === 'secrets' ? '/run/secrets' : '/'
      return [
        {
          type: 'bind' as const,
          source: file,
          target: cleanPath(posix.resolve(base, target)),
          readOnly: true,
        },
      ]
    }),
  )
}

function servicePolicy(name: string, service: Model, names: ProjectNames): ServicePolicy {
  const declaredImages = [
    text(service.image) ?? (service.build === undefined ? undefined : `${names.project}_${name}`),
    service.build === undefined || service.image !== undefined ? undefined : `${names.project}-${name}`,
  ].filter((image): image is string => image !== undefined)
  const networkMode = text(service.network_mode)
  const networkKeys = Array.isArray(service.networks)
    ? service.networks.map(String)
    : Object.keys(record(service.networks))
  const networks =
    networkMode !== undefined
      ? []
      : (networkKeys.length > 0 ? networkKeys : ['default']).map(names.networkName)
  return {
    name,
    images: new Set(declaredImages.flatMap(imageForms)),
    privileged: service.privileged === true,
    capAdd: new Set(list(service.cap_add).map((cap) => normalizeCapability(String(cap)))),
    mounts: [
      ...list(service.volumes)
        .map((entry) => mountOf(entry, names.volumeName))
        .filter((mount): mount is DeclaredMount => mount !== undefined),
      ...fileMounts(service, names),
    ],
    networkMode,
    networks: new Set(networks),
    namespaces: Object.fromEntries(
      namespaceKeys.map(([field, key]) => [field, text(service[key])]),
    ) as Record<NamespaceField, string | undefined>,
    devices: devicesOf(service.devices),
    deviceCgroupRules: new Set(list(service.device_cgroup_rules).map(String)),
    securityOpt: new Set(list(service.security_opt).map(String)),
    sysctls: stringMap(service.sysctls),
    volumesFrom: list(service.volumes_from).map(String),
    runtime: text(service.runtime),
    cgroupParent: text(service.cgroup_parent),
    ports: declaredPorts(service.ports),
    lookups: declaredLookups(name, service, names),
  }
}

/** The policy of a loaded compose model (`name`, `services`, `networks`, `volumes`). */
export function policyOfModel(model: Model, files: readonly string[]): ComposePolicy {
  const project = String(model.name)
  const networks = declaredObjects(model.networks, project)
  const volumes = declaredObjects(model.volumes, project)
  if (!networks.has('default'))
    networks.set('default', {
      key: 'default',
      name: `${project}_default`,
      driver: '',
      options: new Map(),
      ipam: new Set(),
      external: false,
    })
  const names: ProjectNames = {
    project,
    networkName: (key) => networks.get(key)?.name ?? `${project}_${key}`,
    volumeName: (key) => volumes.get(key)?.name ?? `${project}_${key}`,
    fileOf: (section, key) => {
      const declared = record(model[section])
      const file = Object.hasOwn(declared, key) ? text(record(declared[key]).file) : undefined
      return file === undefined ? undefined : cleanPath(posix.resolve('/', file))
    },
    containerName: (service) => {
      const declared = record(model.services)
      return Object.hasOwn(declared, service) ? text(record(declared[service]).container_name) : undefined
    },
  }
  const services = new Map<string, ServicePolicy>()
  for (const [name, service] of entries(model.services))
    services.set(name, servicePolicy(name, record(service), names))
  const used = new Set([...services.values()].flatMap((service) => [...service.networks]))
  const created = (objects: typeof networks, keep: (object: DeclaredObject) => boolean) =>
    new Map(
      [...objects.values()]
        .filter((object) => !object.external && keep(object))
        .map(({ external: _, ...object }) => [object.name, object] as const),
    )
  return {
    project,
    files,
    services,
    networks: created(networks, (network) => network.key !== 'default' || used.has(network.name)),
    volumes: created(volumes, () => true),
    images: new Set([...services.values()].flatMap((service) => [...service.images])),
  }
}

/**
 * Loads the compose files (merged in order, like `-f`; policy-files.ts) with `environment` (the proxy's)
 * and the project's `.env`, and builds their policy. Throws UsageError naming PROXY_COMPOSE_POLICY.
 */
export function loadComposePolicy(
  files: readonly string[],
  environment: Record<string, string | undefined>,
  cwd = process.cwd(),
): ComposePolicy {
  try {
    const project = loadComposeProject({
      files: policyFiles(files, cwd),
      cwd,
      environment,
      referenceIndex: false,
      profiles: environment.COMPOSE_PROFILES ? undefined : ['*'],
    })
    return policyOfModel(project.model, project.files)
  } catch (error) {
    if (!(error instanceof VaultError)) throw error
    throw new UsageError(`PROXY_COMPOSE_POLICY ${files.join(pathSeparator(environment))}: ${error.message}`, {
      hint: error.hint,
      cause: error,
    })
  }
}
