/**
 * The guard's settings from the proxy's (PROXY_GUARD, PROXY_ALLOW_CAP, PROXY_ALLOW_BIND_FROM,
 * PROXY_ALLOW_IMAGE_LOAD), checked: capabilities must be Linux capability names, bind directories
 * absolute paths. The engine's own socket (a unix backend) joins the sockets never bound.
 */
import { posix } from 'node:path'
import { UsageError } from '../errors.js'
import { normalizeCapability } from './body-guard.js'
import type { GuardSettings } from './guard.js'

/** Sockets that give the engine (or its runtime) to whoever can reach them, whatever the backend. */
const knownEngineSockets = [
  '/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/run/podman/podman.sock',
  '/run/crio/crio.sock',
]

/** The guard as the proxy runs it unless told otherwise: on, nothing allowed beyond the defaults. */
export const defaultGuardSettings: GuardSettings = {
  enabled: true,
  allowCaps: new Set(),
  bindFrom: [],
  engineSockets: knownEngineSockets,
  allowImageLoad: false,
}

/** Linux capability names (capabilities(7)), upper case without `CAP_`. */
const linuxCapabilities = new Set(
  (
    'AUDIT_CONTROL AUDIT_READ AUDIT_WRITE BLOCK_SUSPEND BPF CHECKPOINT_RESTORE CHOWN DAC_OVERRIDE ' +
    'DAC_READ_SEARCH FOWNER FSETID IPC_LOCK IPC_OWNER KILL LEASE LINUX_IMMUTABLE MAC_ADMIN MAC_OVERRIDE ' +
    'MKNOD NET_ADMIN NET_BIND_SERVICE NET_BROADCAST NET_RAW PERFMON SETFCAP SETGID SETPCAP SETUID ' +
    'SYS_ADMIN SYS_BOOT SYS_CHROOT SYS_MODULE SYS_NICE SYS_PACCT SYS_PTRACE SYS_RAWIO SYS_RESOURCE ' +
    'SYS_TIME SYS_TTY_CONFIG SYSLOG WAKE_ALARM'
  ).split(' '),
)

/** Whether `name` (upper case, without `CAP_`) is a Linux capability. */
export const isLinuxCapability = (name: string) => linuxCapabilities.has(name)

/** The guard's part of the proxy settings, as given. */
export interface GuardSettingsInput {
  guard?: string
  allowCap?: string[]
  allowBindFrom?: string[]
  allowImageLoad?: boolean
}

/** Resolves and checks the guard settings; `engineSocket` is the backend's unix socket, if it is one. */
export function resolveGuardSettings(input: GuardSettingsInput, engineSocket?: string): GuardSettings {
  if (input.guard !== undefined && input.guard !== 'on' && input.guard !== 'off')
    throw new UsageError(`PROXY_GUARD "${input.guard}" is neither on nor off`)
  const allowCaps = new Set<string>()
  for (const cap of input.allowCap ?? []) {
    const name = normalizeCapability(cap)
    if (!linuxCapabilities.has(name))
      throw new UsageError(`PROXY_ALLOW_CAP "${cap}" is not a Linux capability`, {
        hint: 'e.g. NET_ADMIN or CAP_SYS_TIME',
      })
    allowCaps.add(name)
  }
  const bindFrom = (input.allowBindFrom ?? []).map((dir) => {
    if (!dir.startsWith('/'))
      throw new UsageError(`PROXY_ALLOW_BIND_FROM "${dir}" is not an absolute directory`)
    return posix.normalize(dir).replace(/(.)\/$/, '$1')
  })
  return {
    enabled: input.guard !== 'off',
    allowCaps,
    bindFrom,
    engineSockets: engineSocket === undefined ? knownEngineSockets : [engineSocket, ...knownEngineSockets],
    allowImageLoad: input.allowImageLoad === true,
  }
}
