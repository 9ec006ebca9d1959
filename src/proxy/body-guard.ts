/**
 * The host-escape guard's verdicts on decoded bodies (pure): a decoded body (go-json.ts, with the shapes
 * of guard-shapes.ts) in, a refusal naming the field or null out. What it refuses: privileged containers
 * and execs; capabilities outside Docker's default set (plus --allow-cap); bind sources (Binds, bind
 * Mounts, local volumes bound with o=bind or a device) outside --allow-bind-from, and the engine socket
 * (or a directory above it) always; VolumesFrom, Devices, DeviceRequests, DeviceCgroupRules; host
 * namespaces (network, PID, IPC, UTS, user, cgroup) and another container's PID or IPC namespace, whose
 * /proc/PID/root reaches that container's mounts; security options other than no-new-privileges,
 * AppArmor profiles and SELinux user/role/level labels; sysctls outside the namespaced ones; a cgroup
 * parent; a runtime other than runc; MaskedPaths or ReadonlyPaths (an empty list unmasks /proc); Swarm
 * services with the same fields, plugin runtimes or the host network.
 */
import { posix } from 'node:path'
import type { GoStruct, GoValue } from './go-json.js'

/** What the guard allows beyond its defaults (the --allow-* settings). */
export interface GuardOptions {
  /** Capabilities allowed besides Docker's default set, upper case without `CAP_`. */
  allowCaps: ReadonlySet<string>
  /** Cleaned absolute host directories under which bind sources are allowed. */
  bindFrom: readonly string[]
  /** The engine's sockets: never a bind source, nor any directory above one. */
  engineSockets: readonly string[]
  /** Image loads and imports (`--allow-image-load`). */
  allowImageLoad: boolean
}

/** A setting that would have let a refused request through (learn mode reports it). */
export type Allowance =
  { kind: 'cap'; name: string } | { kind: 'bind-from'; path: string } | { kind: 'image-load' }

/**
 * Why the guard refuses a request: the field (as the body names it) and the reason; the allowance that
 * would let it through, when one would; `undecodable` when the body or query could not be read at all.
 */
export interface Refusal {
  field: string
  reason: string
  allowance?: Allowance
  undecodable?: boolean
}

/** Docker's default capability set (moby oci/caps/defaults.go). */
export const defaultCapabilities: ReadonlySet<string> = new Set([
  'CHOWN',
  'DAC_OVERRIDE',
  'FSETID',
  'FOWNER',
  'MKNOD',
  'NET_RAW',
  'SETGID',
  'SETUID',
  'SETFCAP',
  'SETPCAP',
  'NET_BIND_SERVICE',
  'SYS_CHROOT',
  'KILL',
  'AUDIT_WRITE',
])

/**
 * A capability name as dockerd normalises it: Go's strings.ToUpper (rune by rune, simple mappings:
 * `ſ` is S), without a `CAP_` prefix.
 */
export function normalizeCapability(name: string): string {
  let upper = ''
  for (const char of name) {
    const mapped = char.toUpperCase()
    upper += [...mapped].length === 1 ? mapped : char
  }
  return upper.startsWith('CAP_') ? upper.slice(4) : upper
}

/** The sysctls a container's own namespaces hold (runc's validator): anything else reaches the host. */
const namespacedSysctls = new Set([
  'kernel.msgmax',
  'kernel.msgmnb',
  'kernel.msgmni',
  'kernel.sem',
  'kernel.shmall',
  'kernel.shmmax',
  'kernel.shmmni',
  'kernel.shm_rmid_forced',
])
const namespacedSysctlPrefixes = ['fs.mqueue.', 'net.']

const strings = (value: GoValue): string[] => (Array.isArray(value) ? (value as string[]) : [])
const structs = (value: GoValue): GoStruct[] => (Array.isArray(value) ? (value as GoStruct[]) : [])
const sameText = (value: GoValue, text: string) =>
  typeof value === 'string' && value.trim().toLowerCase() === text

/** `/var/run` is `/run` on the hosts engines run on: compare paths with it folded. */
const foldRun = (path: string) => path.replace(/^\/var\/run(?=\/|$)/, '/run')
const isUnder = (path: string, dir: string) => dir === '/' || path === dir || path.startsWith(`${dir}/`)

/** Refuses a host path outside the allowed directories, or on the way to the engine socket. */
export function hostPathRefusal(source: string, field: string, options: GuardOptions): Refusal | null {
  if (!source.startsWith('/')) return { field, reason: `${field} "${source}" is not an absolute host path` }
  const path = foldRun(posix.normalize(source).replace(/(.)\/$/, '$1'))
  for (const socket of options.engineSockets) {
    if (isUnder(foldRun(posix.normalize(socket)), path))
      return { field, reason: `${field} "${source}" is or holds the engine socket` }
  }
  if (!options.bindFrom.some((dir) => isUnder(path, foldRun(dir))))
    return {
      field,
      reason: `${field} "${source}" is outside the directories binds are allowed from (--allow-bind-from)`,
      allowance: { kind: 'bind-from', path: posix.normalize(source).replace(/(.)\/$/, '$1') },
    }
  return null
}

const volumeName = /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/

/** A `Binds` entry (`src:dst[:mode]`, dockerd's Linux parser): a host path is checked, a volume passes. */
function bindRefusal(bind: string, field: string, options: GuardOptions): Refusal | null {
  const parts = bind.split(':')
  if (parts.length < 2) return null
  const source = parts[0]!
  if (!source.startsWith('/') && volumeName.test(source)) return null
  return hostPathRefusal(source, field, options)
}

const networkVolumeTypes = new Set(['nfs', 'nfs4', 'cifs', 'smb3', 'tmpfs'])

/** The `local` volume driver's options: o=bind or a device make it a mount of a host path. */
function localVolumeRefusal(opts: GoValue, field: string, options: GuardOptions): Refusal | null {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) return null
  const entries = opts as Record<string, string>
  const binds = (entries.o ?? '').split(',').some((word) => ['bind', 'rbind'].includes(word.trim()))
  const device = entries.device ?? ''
  if (binds) return hostPathRefusal(device, `${field}.device`, options)
  if (device === '' || networkVolumeTypes.has((entries.type ?? '').trim().toLowerCase())) return null
  return hostPathRefusal(device, `${field}.device`, options)
}

/** Volume driver options: checked for `local`; another driver's options cannot be read here. */
export function volumeDriverRefusal(
  driver: GoValue,
  opts: GoValue,
  field: string,
  options: GuardOptions,
): Refusal | null {
  if (driver === '' || driver === 'local') return localVolumeRefusal(opts, field, options)
  if (opts !== null && Object.keys(opts).length > 0)
    return { field, reason: `${field} of volume driver "${String(driver)}" cannot be checked` }
  return null
}

function mountRefusal(mount: GoStruct, field: string, options: GuardOptions): Refusal | null {
  if (mount.Type === 'tmpfs') return null
  if (mount.Type === 'volume') {
    const driver = (mount.VolumeOptions as GoStruct | null)?.DriverConfig as GoStruct | null | undefined
    if (!driver) return null
    return volumeDriverRefusal(
      driver.Name!,
      driver.Options!,
      `${field}.VolumeOptions.DriverConfig.Options`,
      options,
    )
  }
  return hostPathRefusal(String(mount.Source), `${field}.Source`, options)
}

export function mountsRefusal(mounts: GoValue, field: string, options: GuardOptions): Refusal | null {
  for (const [index, mount] of structs(mounts).entries()) {
    const refusal = mountRefusal(mount, `${field}[${index}]`, options)
    if (refusal) return refusal
  }
  return null
}

export function capabilitiesRefusal(caps: GoValue, field: string, options: GuardOptions): Refusal | null {
  for (const cap of strings(caps)) {
    const name = normalizeCapability(cap)
    if (!defaultCapabilities.has(name) && !options.allowCaps.has(name))
      return {
        field,
        reason: `${field} "${cap}" is not in Docker's default capability set (--allow-cap)`,
        allowance: { kind: 'cap', name },
      }
  }
  return null
}

export function sysctlsRefusal(sysctls: GoValue, field: string): Refusal | null {
  for (const key of Object.keys((sysctls ?? {}) as GoStruct)) {
    const name = key.replaceAll('/', '.')
    if (!namespacedSysctls.has(name) && !namespacedSysctlPrefixes.some((prefix) => name.startsWith(prefix)))
      return { field, reason: `${field} "${key}" is not a namespaced sysctl` }
  }
  return null
}

const allowedSecurityOpt =
  /^(?:no-new-privileges(?:[=:](?:true|false))?|apparmor[=:](?!unconfined$).+|label[=:](?:user|role|level):.*)$/i

const hostOnly = ['NetworkMode', 'UTSMode', 'UsernsMode', 'CgroupnsMode']
const hostOrContainer = ['PidMode', 'IpcMode']
const mustBeEmpty = ['VolumesFrom', 'Devices', 'DeviceRequests', 'DeviceCgroupRules']

/** container.Resources: the fields of an update (and of a HostConfig) that reach the host. */
export function resourcesRefusal(resources: GoStruct, prefix: string): Refusal | null {
  for (const name of mustBeEmpty) {
    if (name in resources && structs(resources[name]!).length > 0)
      return { field: `${prefix}${name}`, reason: `${prefix}${name} is refused (it reaches the host)` }
  }
  if (resources.CgroupParent)
    return {
      field: `${prefix}CgroupParent`,
      reason: `${prefix}CgroupParent is refused (a cgroup of the host)`,
    }
  return null
}

/** A HostConfig (or the top level of a create body, `prefix` ''). */
export function hostConfigRefusal(
  config: GoStruct | null,
  prefix: string,
  options: GuardOptions,
): Refusal | null {
  if (config === null) return null
  const field = (name: string) => `${prefix}${name}`
  if (config.Privileged === true)
    return { field: field('Privileged'), reason: `${field('Privileged')} is refused` }
  const resources = resourcesRefusal(config, prefix)
  if (resources) return resources
  for (const name of hostOnly) {
    if (sameText(config[name]!, 'host'))
      return { field: field(name), reason: `${field(name)} "host" is refused` }
  }
  for (const name of hostOrContainer) {
    const mode = String(config[name]).trim().toLowerCase()
    if (mode === 'host' || mode.startsWith('container:'))
      return { field: field(name), reason: `${field(name)} "${String(config[name])}" is refused` }
  }
  for (const [index, bind] of strings(config.Binds!).entries()) {
    const refusal = bindRefusal(bind, field(`Binds[${index}]`), options)
    if (refusal) return refusal
  }
  for (const opt of strings(config.SecurityOpt!)) {
    if (!allowedSecurityOpt.test(opt.trim()))
      return {
        field: field('SecurityOpt'),
        reason: `${field('SecurityOpt')} "${opt.slice(0, 60)}" is refused`,
      }
  }
  if (config.Runtime !== '' && config.Runtime !== 'runc')
    return { field: field('Runtime'), reason: `${field('Runtime')} "${String(config.Runtime)}" is refused` }
  for (const name of ['MaskedPaths', 'ReadonlyPaths']) {
    if (config[name] !== null)
      return { field: field(name), reason: `${field(name)} is refused (an empty list unmasks /proc)` }
  }
  return (
    capabilitiesRefusal(config.CapAdd!, field('CapAdd'), options) ??
    sysctlsRefusal(config.Sysctls!, field('Sysctls')) ??
    mountsRefusal(config.Mounts!, field('Mounts'), options)
  )
}

/** A Swarm service spec (create or update). */
export function serviceRefusal(spec: GoStruct, options: GuardOptions): Refusal | null {
  const task = spec.TaskTemplate as GoStruct
  const container = task.ContainerSpec as GoStruct | null
  if (task.PluginSpec !== null || !['', 'container'].includes(String(task.Runtime).toLowerCase()))
    return {
      field: 'TaskTemplate.Runtime',
      reason: 'plugin services are refused (a plugin runs with host privileges)',
    }
  for (const [where, networks] of [
    ['TaskTemplate.Networks', task.Networks!],
    ['Networks', spec.Networks!],
  ] as const) {
    if (structs(networks).some((network) => sameText(network.Target!, 'host')))
      return { field: where, reason: `${where} "host" is refused` }
  }
  if (container === null) return null
  const privileges = container.Privileges as GoStruct | null
  const selinux = privileges?.SELinuxContext as GoStruct | null | undefined
  if (selinux && (selinux.Disable === true || selinux.Type !== ''))
    return {
      field: 'TaskTemplate.ContainerSpec.Privileges.SELinuxContext',
      reason: 'SELinux labels other than user, role and level are refused',
    }
  for (const [name, plain] of [
    ['Seccomp', 'default'],
    ['AppArmor', 'default'],
  ] as const) {
    const mode = (privileges?.[name] as GoStruct | null | undefined)?.Mode
    if (mode !== undefined && mode !== '' && mode !== plain)
      return {
        field: `TaskTemplate.ContainerSpec.Privileges.${name}`,
        reason: `${name} mode "${String(mode)}" is refused`,
      }
  }
  const prefix = 'TaskTemplate.ContainerSpec.'
  return (
    capabilitiesRefusal(container.CapabilityAdd!, `${prefix}CapabilityAdd`, options) ??
    sysctlsRefusal(container.Sysctls!, `${prefix}Sysctls`) ??
    mountsRefusal(container.Mounts!, `${prefix}Mounts`, options)
  )
}
