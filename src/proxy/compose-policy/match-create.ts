/**
 * Decides a container create under a compose policy (pure): the decoded body (shapes.ts) names its
 * project and service by compose's labels, and every host-reaching field must be within what that
 * service declares. Strictly declared (nothing else passes): the image, privileged, cap_add, binds and
 * volumes (Binds and Mounts: source, target, read-only), the network mode and endpoints, the PID, IPC,
 * UTS, user and cgroup namespaces, devices and device cgroup rules, volumes_from, published ports
 * (match-ports.ts), extra hosts, DNS servers, search domains and options, links, network aliases and
 * fixed addresses (match-lookups.ts).
 * Declared or else the host-escape guard's defaults: security options, sysctls, the runtime, the cgroup
 * parent. What the policy does not model (MaskedPaths, ReadonlyPaths, DeviceRequests) is the guard's
 * alone: the guard judges the body with the declared values taken out, so a declared bind of the engine
 * socket passes and an undeclared `seccomp=unconfined` is still refused. Not read by either: resources
 * (memory, CPU, PIDs, ShmSize, Ulimits, OomScoreAdj), Init, CapDrop, GroupAdd, Tmpfs, ReadonlyRootfs,
 * the restart and log settings, ExposedPorts.
 */
import { posix } from 'node:path'
import { hostConfigRefusal, normalizeCapability, type GuardOptions, type Refusal } from '../body-guard.js'
import type { GoStruct, GoValue } from '../go-json.js'
import { endpointAddresses, endpointRefusal, lookupsRefusal } from './match-lookups.js'
import { portsRefusal } from './match-ports.js'
import type { ComposePolicy, DeclaredMount, NamespaceField, ServicePolicy } from './policy.js'

export const projectLabel = 'com.docker.compose.project'
export const serviceLabel = 'com.docker.compose.service'

const strings = (value: GoValue | undefined): string[] => (Array.isArray(value) ? (value as string[]) : [])
const structs = (value: GoValue | undefined): GoStruct[] =>
  Array.isArray(value) ? (value as GoStruct[]) : []
const stringMap = (value: GoValue | undefined): Record<string, string> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, string>)
    : {}
const cleanPath = (path: string) => {
  const normal = posix.normalize(path)
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal
}
const quoted = (value: string) => JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}...` : value)

/** The value of an own key of a decoded map (never one of Object.prototype's). */
export function ownValue(map: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined
}

/** The project's service a labelled body belongs to, or the refusal naming the label. */
export function serviceOfLabels(
  policy: ComposePolicy,
  labels: Record<string, string>,
  what: string,
): ServicePolicy | Refusal {
  const project = ownValue(labels, projectLabel)
  if (project === undefined)
    return {
      field: `Labels.${projectLabel}`,
      reason: `${what} without the label ${projectLabel} (only project "${policy.project}"'s services are allowed)`,
    }
  if (project !== policy.project)
    return {
      field: `Labels.${projectLabel}`,
      reason: `${what} of project ${quoted(project)}, not "${policy.project}" (Labels.${projectLabel})`,
    }
  const name = ownValue(labels, serviceLabel)
  const service = name === undefined ? undefined : policy.services.get(name)
  if (service === undefined)
    return {
      field: `Labels.${serviceLabel}`,
      reason:
        name === undefined
          ? `${what} without the label ${serviceLabel}`
          : `project "${policy.project}" has no service ${quoted(name)} (Labels.${serviceLabel})`,
    }
  return service
}

const anonymousVolume = /^[0-9a-f]{64}$/

/** A mount of the body, read from a Binds entry or a Mounts element. */
interface BodyMount {
  type: string
  source: string
  target: string
  readOnly: boolean
  field: string
}

function bindOf(bind: string, field: string): BodyMount | undefined {
  const parts = bind.split(':')
  if (parts.length < 2 || parts.length > 3) return undefined
  const [source = '', target = '', mode = ''] = parts
  return {
    type: source.startsWith('/') ? 'bind' : 'volume',
    source,
    target,
    readOnly: mode.split(',').includes('ro'),
    field,
  }
}

function mountMatches(declared: DeclaredMount, mount: BodyMount): boolean {
  return (
    declared.type === mount.type &&
    declared.source === (mount.type === 'bind' ? cleanPath(mount.source) : mount.source) &&
    declared.target === cleanPath(mount.target) &&
    (mount.readOnly || !declared.readOnly)
  )
}

function mountRefusal(service: ServicePolicy, mount: BodyMount): Refusal | null {
  const service_ = `service "${service.name}"`
  if (mount.type === 'tmpfs') return null
  if (mount.type === 'volume' && (mount.source === '' || anonymousVolume.test(mount.source))) return null
  if (mount.type !== 'bind' && mount.type !== 'volume')
    return {
      field: mount.field,
      reason: `${service_} does not declare a ${quoted(mount.type)} mount (${mount.field})`,
    }
  if (service.mounts.some((declared) => mountMatches(declared, mount))) return null
  const kind = mount.type === 'bind' ? 'a bind of' : 'volume'
  const readOnly = service.mounts.some((declared) => mountMatches(declared, { ...mount, readOnly: true }))
  return {
    field: mount.field,
    reason: readOnly
      ? `${service_} declares ${kind} ${quoted(mount.source)} at ${mount.target} read-only (${mount.field})`
      : `${service_} does not declare ${kind} ${quoted(mount.source)} at ${quoted(mount.target)} (${mount.field})`,
  }
}

const defaultModes: Record<NamespaceField, readonly string[]> = {
  PidMode: [''],
  IpcMode: ['', 'private', 'shareable', 'none'],
  UTSMode: [''],
  UsernsMode: [''],
  CgroupnsMode: ['', 'private'],
}
const namespaceKeys: Record<NamespaceField, string> = {
  PidMode: 'pid',
  IpcMode: 'ipc',
  UTSMode: 'uts',
  UsernsMode: 'userns_mode',
  CgroupnsMode: 'cgroup',
}

/** A mode equals the declared one; compose sends `service:x` as `container:<id>`. */
function modeDeclared(declared: string | undefined, mode: string): boolean {
  if (declared === undefined) return false
  if (declared === mode) return true
  return declared.startsWith('service:') && mode.startsWith('container:')
}

function networkRefusal(service: ServicePolicy, config: GoStruct, prefix: string): Refusal | null {
  const mode = String(config.NetworkMode ?? '')
  if (mode === '') return null
  const declared =
    service.networkMode !== undefined ? modeDeclared(service.networkMode, mode) : service.networks.has(mode)
  if (declared) return null
  return {
    field: `${prefix}NetworkMode`,
    reason: `service "${service.name}" does not declare network ${quoted(mode)} (${prefix}NetworkMode)`,
  }
}

/** The strictly declared fields of one HostConfig (or the body's top level). */
function hostFieldsRefusal(service: ServicePolicy, config: GoStruct, prefix: string): Refusal | null {
  const name = `service "${service.name}"`
  if (config.Privileged === true && !service.privileged)
    return {
      field: `${prefix}Privileged`,
      reason: `${name} does not declare privileged: true (${prefix}Privileged)`,
    }
  for (const cap of strings(config.CapAdd)) {
    const normal = normalizeCapability(cap)
    if (!service.capAdd.has(normal) && !service.capAdd.has('ALL'))
      return {
        field: `${prefix}CapAdd`,
        reason: `${name} does not declare cap_add ${quoted(cap)} (${prefix}CapAdd)`,
      }
  }
  const network = networkRefusal(service, config, prefix)
  if (network) return network
  for (const field of Object.keys(defaultModes) as NamespaceField[]) {
    const mode = String(config[field] ?? '')
    if (defaultModes[field].includes(mode.toLowerCase()) || modeDeclared(service.namespaces[field], mode))
      continue
    return {
      field: `${prefix}${field}`,
      reason: `${name} does not declare ${namespaceKeys[field]}: ${mode} (${prefix}${field})`,
    }
  }
  const mounts: (BodyMount | Refusal)[] = [
    ...strings(config.Binds).map(
      (bind, index) =>
        bindOf(bind, `${prefix}Binds[${index}]`) ?? {
          field: `${prefix}Binds[${index}]`,
          reason: `${prefix}Binds[${index}] ${quoted(bind)} is not SOURCE:TARGET[:MODE]`,
        },
    ),
    ...structs(config.Mounts).map((mount, index) => {
      const field = `${prefix}Mounts[${index}]`
      const driver = (mount.VolumeOptions as GoStruct | null)?.DriverConfig as GoStruct | null | undefined
      if (driver && (driver.Name !== '' || Object.keys(stringMap(driver.Options)).length > 0))
        return { field, reason: `${name} does not declare volume driver options in a mount (${field})` }
      return {
        type: String(mount.Type) === '' ? 'bind' : String(mount.Type),
        source: String(mount.Source),
        target: String(mount.Target),
        readOnly: (mount as GoStruct).ReadOnly === true,
        field,
      }
    }),
  ]
  for (const mount of mounts) {
    const refusal = 'reason' in mount ? mount : mountRefusal(service, mount)
    if (refusal) return refusal
  }
  for (const [index, device] of structs(config.Devices).entries()) {
    const host = cleanPath(String(device.PathOnHost))
    const inContainer =
      String(device.PathInContainer) === '' ? host : cleanPath(String(device.PathInContainer))
    if (!service.devices.some((declared) => declared.host === host && declared.container === inContainer))
      return {
        field: `${prefix}Devices[${index}]`,
        reason: `${name} does not declare device ${quoted(`${host}:${inContainer}`)} (${prefix}Devices[${index}])`,
      }
  }
  for (const rule of strings(config.DeviceCgroupRules)) {
    if (!service.deviceCgroupRules.has(rule))
      return {
        field: `${prefix}DeviceCgroupRules`,
        reason: `${name} does not declare device_cgroup_rules ${quoted(rule)} (${prefix}DeviceCgroupRules)`,
      }
  }
  for (const source of strings(config.VolumesFrom)) {
    const container = source.replace(/:(ro|rw)$/, '')
    const declared = service.volumesFrom.some(
      (entry) =>
        entry.replace(/:(ro|rw)$/, '') === container || (!entry.startsWith('container:') && container !== ''),
    )
    if (!declared)
      return {
        field: `${prefix}VolumesFrom`,
        reason: `${name} does not declare volumes_from ${quoted(source)} (${prefix}VolumesFrom)`,
      }
  }
  return null
}

/**
 * The HostConfig (or top level) as the guard should see it: the strictly declared fields emptied (they
 * were matched), and of the declared-or-guard fields only what the service does not declare.
 */
function residual(service: ServicePolicy, config: GoStruct): GoStruct {
  const rest: GoStruct = { ...config }
  for (const field of ['Privileged', 'NetworkMode', ...Object.keys(defaultModes)])
    rest[field] = typeof config[field] === 'boolean' ? false : ''
  for (const field of ['CapAdd', 'Binds', 'Mounts', 'Devices', 'DeviceCgroupRules', 'VolumesFrom'])
    rest[field] = null
  rest.SecurityOpt = strings(config.SecurityOpt).filter((opt) => !service.securityOpt.has(opt))
  const sysctls = stringMap(config.Sysctls)
  rest.Sysctls = Object.fromEntries(
    Object.keys(sysctls)
      .filter((key) => service.sysctls.get(key) !== sysctls[key])
      .map((key) => [key, sysctls[key]!]),
  )
  if (service.runtime !== undefined && config.Runtime === service.runtime) rest.Runtime = ''
  if (service.cgroupParent !== undefined && config.CgroupParent === service.cgroupParent)
    rest.CgroupParent = ''
  return rest
}

function imageRefusal(service: ServicePolicy, image: string): Refusal | null {
  if (service.images.has(image)) return null
  return {
    field: 'Image',
    reason: `service "${service.name}" does not declare image ${quoted(image)} (Image)`,
  }
}

/**
 * Judges a decoded create body under the policy: null when it is one of the project's services with
 * nothing beyond what the service declares; else the refusal naming the service and the field.
 */
export function createRefusal(policy: ComposePolicy, view: GoStruct, guard: GuardOptions): Refusal | null {
  const service = serviceOfLabels(policy, stringMap(view.Labels), 'a container create')
  if ('reason' in service) return service
  const imageRefused = imageRefusal(service, String(view.Image))
  if (imageRefused) return imageRefused
  const endpoints = (((view.NetworkingConfig as GoStruct | null)?.EndpointsConfig as GoValue | undefined) ??
    {}) as Record<string, GoStruct | null>
  for (const [network, endpoint] of Object.entries(endpoints)) {
    if (!service.networks.has(network) && !modeDeclared(service.networkMode, network))
      return {
        field: 'NetworkingConfig.EndpointsConfig',
        reason: `service "${service.name}" does not declare network ${quoted(network)} (NetworkingConfig.EndpointsConfig)`,
      }
    const refusal = endpointRefusal(
      policy.project,
      service,
      {
        network,
        aliases: strings(endpoint?.Aliases),
        links: strings(endpoint?.Links),
        addresses: endpointAddresses(endpoint?.IPAMConfig as GoStruct | null | undefined),
      },
      `NetworkingConfig.EndpointsConfig.${network}`,
    )
    if (refusal) return refusal
  }
  const strictRefusal = (config: GoStruct, prefix: string) =>
    hostFieldsRefusal(service, config, prefix) ??
    portsRefusal(service, config, prefix) ??
    lookupsRefusal(policy.project, service, config, prefix)
  const hostConfig = view.HostConfig as GoStruct | null
  const strict =
    (hostConfig === null ? null : strictRefusal(hostConfig, 'HostConfig.')) ?? strictRefusal(view, '')
  if (strict) return strict
  const guarded =
    (hostConfig === null ? null : hostConfigRefusal(residual(service, hostConfig), 'HostConfig.', guard)) ??
    hostConfigRefusal(residual(service, view), '', guard)
  return guarded
    ? { field: guarded.field, reason: `service "${service.name}" does not declare it, and ${guarded.reason}` }
    : null
}
