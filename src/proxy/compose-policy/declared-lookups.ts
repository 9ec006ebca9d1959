/**
 * What decides where a service's container resolves names, as the compose policy compares it (pure):
 * `extra_hosts` (a list of `name:ip` or `name=ip`, or a map of name to address or addresses), `dns`,
 * `dns_search` and `dns_opt` (a string or a list), `links` and `external_links`, and the `aliases` and
 * fixed addresses (`ipv4_address`, `ipv6_address`, `link_local_ips`) of each network it joins.
 */
import { canonicalIp } from './ip-text.js'
import type { DeclaredEndpoint, DeclaredLookups } from './policy.js'

type Model = Record<string, unknown>

const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : value === undefined || value === null ? [] : [String(value)]

/**
 * An `extra_hosts` entry (`name:ip`, `name=ip`, the IP in brackets or not) as `name ip`, the IP in one
 * spelling; undefined when the address is neither an IP address nor `host-gateway`.
 */
export function extraHostKey(name: string, address: string): string | undefined {
  const ip = address === 'host-gateway' ? address : canonicalIp(address)
  return ip === undefined || name === '' ? undefined : `${name} ${ip}`
}

/** A `name:ip` or `name=ip` entry split where the engine splits it: at the first `=`, else the first `:`. */
export function splitExtraHost(entry: string): [string, string] {
  const at = entry.includes('=') ? entry.indexOf('=') : entry.indexOf(':')
  return at === -1 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)]
}

function extraHosts(value: unknown): Set<string> {
  const pairs: [string, string][] = Array.isArray(value)
    ? value.map((entry) => splitExtraHost(String(entry)))
    : value !== null && typeof value === 'object'
      ? Object.entries(value as Model).flatMap(([name, addresses]) =>
          texts(addresses).map((address): [string, string] => [name, address]),
        )
      : []
  return new Set(
    pairs.map(([name, address]) => extraHostKey(name, address)).filter((key) => key !== undefined),
  )
}

/** A `links` entry's service (`db`, `db:alias`), or an `external_links` entry's container. */
const sourceOf = (entry: string) => entry.split(':')[0]!

/** How the project names things: a service's `container_name` (if set), a network's engine name. */
export interface LookupNames {
  containerName: (service: string) => string | undefined
  networkName: (key: string) => string
}

/** `networks:` as a map: each network's `aliases` and fixed addresses, by engine name. */
function networkEndpoints(networks: unknown, networkName: (key: string) => string) {
  const entries =
    networks !== null && typeof networks === 'object' && !Array.isArray(networks)
      ? Object.entries(networks as Model)
      : []
  return new Map(
    entries.map(([key, value]): [string, DeclaredEndpoint] => {
      const spec = value !== null && typeof value === 'object' ? (value as Model) : {}
      const addresses = [
        ...texts(spec.ipv4_address),
        ...texts(spec.ipv6_address),
        ...texts(spec.link_local_ips),
      ]
      return [
        networkName(key),
        {
          aliases: new Set(texts(spec.aliases)),
          addresses: new Set(addresses.map((address) => canonicalIp(address) ?? address)),
        },
      ]
    }),
  )
}

/** The lookups of service `name`: compose links to linked services' `container_name`s where they set one. */
export function declaredLookups(name: string, service: Model, names: LookupNames): DeclaredLookups {
  const { containerName } = names
  const linked = [name, ...texts(service.links).map(sourceOf)]
  const named = linked.map(containerName).filter((text) => text !== undefined)
  return {
    extraHosts: extraHosts(service.extra_hosts),
    dns: new Set(texts(service.dns).map((server) => canonicalIp(server) ?? server)),
    dnsSearch: new Set(texts(service.dns_search)),
    dnsOptions: new Set(texts(service.dns_opt)),
    linkedServices: new Set(linked.filter((linkedService) => containerName(linkedService) === undefined)),
    linkedContainers: new Set([...texts(service.external_links).map(sourceOf), ...named]),
    endpoints: networkEndpoints(service.networks, names.networkName),
    containerName: containerName(name),
  }
}
