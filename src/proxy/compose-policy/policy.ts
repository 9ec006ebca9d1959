/**
 * What a compose project allows through the proxy (pure data, built by load.ts from the compose files):
 * the project's name, and for each service the host-reaching settings it declares, with names already
 * as the engine sees them (networks and volumes with their project prefix, bind sources absolute and
 * cleaned); the networks and volumes the project creates, and the images it may pull.
 */

/** A bind or volume a service declares (`volumes:`, short or long syntax, as compose sends it). */
export interface DeclaredMount {
  type: 'bind' | 'volume' | 'tmpfs'
  /** A bind: the absolute, cleaned host path; a volume: its engine name ('' for an anonymous volume). */
  source: string
  /** The path in the container, cleaned. */
  target: string
  readOnly: boolean
}

/** The host-reaching settings of one service. */
export interface ServicePolicy {
  name: string
  /** The image names the service's containers may run (its `image`, or compose's name for a `build`). */
  images: ReadonlySet<string>
  privileged: boolean
  /** `cap_add`, upper case without `CAP_` (`ALL` as written). */
  capAdd: ReadonlySet<string>
  mounts: readonly DeclaredMount[]
  /** `network_mode` as written (`host`, `none`, `service:x`, `container:x`), or undefined. */
  networkMode?: string
  /** The engine names of the networks the service joins (the project's default network if none). */
  networks: ReadonlySet<string>
  /** `pid`, `ipc`, `uts`, `userns_mode`, `cgroup` as written (HostConfig names). */
  namespaces: Readonly<Record<NamespaceField, string | undefined>>
  /** `devices` as `host:container` paths. */
  devices: readonly { host: string; container: string }[]
  deviceCgroupRules: ReadonlySet<string>
  securityOpt: ReadonlySet<string>
  sysctls: ReadonlyMap<string, string>
  /** `volumes_from` as written. */
  volumesFrom: readonly string[]
  runtime?: string
  cgroupParent?: string
  /** `ports`, one entry per container port (ranges expanded as compose expands them). */
  ports: readonly DeclaredPort[]
  /** What decides where the container's names resolve (`extra_hosts`, `dns*`, `links`). */
  lookups: DeclaredLookups
}

/** One published port a service declares (`ports:`, short or long syntax). */
export interface DeclaredPort {
  /** The container port and its protocol (`tcp`, `udp`, `sctp`). */
  container: number
  protocol: string
  /** The host address (`host_ip`), '' for every address. */
  hostIp: string
  /** The host port or range (`published`); undefined for one the engine picks. */
  hostPorts?: { first: number; last: number }
}

/** What a service declares for one network it joins. */
export interface DeclaredEndpoint {
  aliases: ReadonlySet<string>
  /** `ipv4_address`, `ipv6_address` and `link_local_ips`, each in one spelling (ip-text.ts). */
  addresses: ReadonlySet<string>
}

/** `extra_hosts`, `dns`, `dns_search`, `dns_opt`, `links` and `external_links` of one service. */
export interface DeclaredLookups {
  /** `extra_hosts` as `name ip` (the IP without brackets). */
  extraHosts: ReadonlySet<string>
  dns: ReadonlySet<string>
  dnsSearch: ReadonlySet<string>
  dnsOptions: ReadonlySet<string>
  /**
   * The services whose containers it may link to by compose's names: those of `links`, and itself (a
   * one-off's links), unless they set a `container_name`.
   */
  linkedServices: ReadonlySet<string>
  /** Container names it may link to: `external_links` sources, the `container_name` of linked services. */
  linkedContainers: ReadonlySet<string>
  /** `networks: {KEY: {aliases, ipv4_address, ...}}`, by the network's engine name. */
  endpoints: ReadonlyMap<string, DeclaredEndpoint>
  /** Its own `container_name`, if it sets one (compose gives it as an alias). */
  containerName?: string
}

export type NamespaceField = 'PidMode' | 'IpcMode' | 'UTSMode' | 'UsernsMode' | 'CgroupnsMode'

/** A network or volume the project creates: its engine name, key in the file, driver and options. */
export interface DeclaredObject {
  key: string
  name: string
  driver: string
  options: ReadonlyMap<string, string>
  /** A network's `ipam.config` entries as `subnet ip_range gateway` ('' for one not given). */
  ipam: ReadonlySet<string>
}

export interface ComposePolicy {
  /** The project name (`com.docker.compose.project`). */
  project: string
  /** The compose files, for messages and logs. */
  files: readonly string[]
  services: ReadonlyMap<string, ServicePolicy>
  /** Networks the project creates, by engine name (external ones are not created by compose). */
  networks: ReadonlyMap<string, DeclaredObject>
  volumes: ReadonlyMap<string, DeclaredObject>
  /** Every image a service names, as declared and in its normalised forms (pulls). */
  images: ReadonlySet<string>
}

/**
 * The forms of an image reference that name the same image: as written, with `:latest` when no tag or
 * digest is given, and with Docker Hub's `docker.io/` and `library/` prefixes added or removed.
 */
export function imageForms(reference: string): string[] {
  const lastSlash = reference.lastIndexOf('/')
  const hasTag = reference.includes('@') || reference.slice(lastSlash + 1).includes(':')
  const tagged = hasTag ? reference : `${reference}:latest`
  const first = tagged.split('/')[0]!
  const hasRegistry =
    tagged.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')
  const path = hasRegistry ? tagged.slice(first.length + 1) : tagged
  const hub = !hasRegistry || first === 'docker.io' || first === 'index.docker.io'
  if (!hub) return [...new Set([reference, tagged])]
  const short = path.startsWith('library/') ? path.slice('library/'.length) : path
  const long = short.includes('/') ? short : `library/${short}`
  return [...new Set([reference, tagged, short, long, `docker.io/${short}`, `docker.io/${long}`])]
}

/** One IPAM pool as compared between a file (`ipam.config`) and a network create body (`IPAM.Config`). */
export const ipamKey = (subnet = '', ipRange = '', gateway = '') => `${subnet} ${ipRange} ${gateway}`
