/**
 * Decides what a create body says about where the container's names resolve, under a compose policy
 * (pure): `ExtraHosts`, `Dns`, `DnsSearch`, `DnsOptions` and `Links` (of the HostConfig, and of each
 * network endpoint) must each be declared by the service (`extra_hosts`, `dns`, `dns_search`,
 * `dns_opt`, `links`, `external_links`): an undeclared host entry or DNS server sends the container's
 * traffic elsewhere, and a legacy link on the default bridge hands it the linked container's
 * environment. A link's source must be a container of a service the service links to (compose's names
 * for it, `PROJECT_SERVICE_N` or `PROJECT-SERVICE-N`, or its `container_name`), of the service itself
 * (a one-off links to its own service), or an `external_links` container; its alias is free. A network
 * endpoint's aliases and fixed addresses are declared too (endpointRefusal): an alias or the address of
 * another service would take its traffic.
 */
import type { Refusal } from '../body-guard.js'
import type { GoStruct, GoValue } from '../go-json.js'
import { extraHostKey, splitExtraHost } from './declared-lookups.js'
import { canonicalIp } from './ip-text.js'
import type { ServicePolicy } from './policy.js'

const strings = (value: GoValue | undefined): string[] => (Array.isArray(value) ? (value as string[]) : [])
const quoted = (value: string) => JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}...` : value)

/**
 * The suffix after compose's name prefix for a service's containers (`PROJECT_SERVICE_` for 1.29,
 * `PROJECT-SERVICE-` for v2), with the separator it used; undefined when `name` has neither.
 */
function composeSuffix(project: string, service: string, name: string): [string, string] | undefined {
  for (const separator of ['_', '-']) {
    const prefix = `${project}${separator}${service}${separator}`
    if (name.startsWith(prefix)) return [name.slice(prefix.length), separator]
  }
  return undefined
}
const containerNumber = /^[0-9]+$/
const oneOffId = /^[0-9a-f]+$/

/** The container a link names, as the engine's ParseLink reads `SOURCE[:ALIAS]`; undefined if malformed. */
function linkSource(link: string): string | undefined {
  const parts = link.split(':')
  if (link === '' || parts.length > 2) return undefined
  const source = parts[0]!
  return source.startsWith('/') ? source.slice(1) : source
}

function linkDeclared(project: string, service: ServicePolicy, source: string): boolean {
  const { linkedServices, linkedContainers } = service.lookups
  if (linkedContainers.has(source)) return true
  return [...linkedServices].some((linked) =>
    containerNumber.test(composeSuffix(project, linked, source)?.[0] ?? ''),
  )
}

/** The refusal of the first link not declared, or null. */
export function linksRefusal(
  project: string,
  service: ServicePolicy,
  links: readonly string[],
  field: string,
): Refusal | null {
  for (const [index, link] of links.entries()) {
    const source = linkSource(link)
    if (source !== undefined && linkDeclared(project, service, source)) continue
    return {
      field,
      reason: `service "${service.name}" does not declare links or external_links to ${quoted(source ?? link)} (${field}[${index}])`,
    }
  }
  return null
}

/** What a create body's endpoint (or a connect body's EndpointConfig) says of one network. */
export interface EndpointView {
  /** The network's engine name. */
  network: string
  aliases: readonly string[]
  links: readonly string[]
  /** IPAMConfig's IPv4Address and IPv6Address (when given) and LinkLocalIPs. */
  addresses: readonly string[]
  /** The container's id, on a connect (compose 1.29 gives its short id as an alias). */
  containerId?: string
}

/** Compose's names for the service's own containers (`PROJECT_SERVICE_N`, a one-off's `..._run_ID`). */
function ownName(project: string, service: ServicePolicy, alias: string): boolean {
  if (service.lookups.containerName !== undefined) return alias === service.lookups.containerName
  const [suffix, separator] = composeSuffix(project, service.name, alias) ?? ['', '']
  return (
    containerNumber.test(suffix) || (suffix.startsWith(`run${separator}`) && oneOffId.test(suffix.slice(4)))
  )
}

function aliasDeclared(
  project: string,
  service: ServicePolicy,
  endpoint: EndpointView,
  alias: string,
): boolean {
  if (alias === service.name || service.lookups.endpoints.get(endpoint.network)?.aliases.has(alias))
    return true
  if (ownName(project, service, alias)) return true
  return /^[0-9a-f]{12}$/.test(alias) && endpoint.containerId?.startsWith(alias) === true
}

/**
 * The refusal of an endpoint's first alias or link the service does not declare, or null. An alias
 * answers for the container on that network: the service's name, an alias declared for that network,
 * compose's name for the container itself, and (on a connect) its short id pass; another service's
 * name does not (it would take that service's traffic).
 */
export function endpointRefusal(
  project: string,
  service: ServicePolicy,
  endpoint: EndpointView,
  field: string,
): Refusal | null {
  for (const [index, alias] of endpoint.aliases.entries()) {
    if (aliasDeclared(project, service, endpoint, alias)) continue
    return {
      field: `${field}.Aliases`,
      reason: `service "${service.name}" does not declare alias ${quoted(alias)} on network ${quoted(endpoint.network)} (${field}.Aliases[${index}])`,
    }
  }
  const declared = service.lookups.endpoints.get(endpoint.network)?.addresses
  for (const address of endpoint.addresses) {
    if (declared?.has(canonicalIp(address) ?? address)) continue
    return {
      field: `${field}.IPAMConfig`,
      reason: `service "${service.name}" does not declare address ${quoted(address)} on network ${quoted(endpoint.network)} (${field}.IPAMConfig)`,
    }
  }
  return linksRefusal(project, service, endpoint.links, `${field}.Links`)
}

/** The addresses an endpoint's IPAMConfig asks for (its empty fields ask for none). */
export function endpointAddresses(ipam: GoStruct | null | undefined): string[] {
  if (!ipam) return []
  return [
    String(ipam.IPv4Address ?? ''),
    String(ipam.IPv6Address ?? ''),
    ...strings(ipam.LinkLocalIPs),
  ].filter((address) => address !== '')
}

/** A list field whose every entry must be in the declared set (after `key`). */
function listRefusal(
  service: ServicePolicy,
  entries: readonly string[],
  check: { declared: ReadonlySet<string>; key: (entry: string) => string | undefined; file: string },
  field: string,
): Refusal | null {
  for (const [index, entry] of entries.entries()) {
    const key = check.key(entry)
    if (key !== undefined && check.declared.has(key)) continue
    return {
      field,
      reason: `service "${service.name}" does not declare ${check.file} ${quoted(entry)} (${field}[${index}])`,
    }
  }
  return null
}

/** The HostConfig's (or the body's top level) lookups: the refusal of the first not declared, or null. */
export function lookupsRefusal(
  project: string,
  service: ServicePolicy,
  config: GoStruct,
  prefix: string,
): Refusal | null {
  const { lookups } = service
  const same = (entry: string) => entry
  const checks: [
    string,
    { declared: ReadonlySet<string>; key: (entry: string) => string | undefined; file: string },
  ][] = [
    [
      'ExtraHosts',
      {
        declared: lookups.extraHosts,
        key: (entry) => extraHostKey(...splitExtraHost(entry)),
        file: 'extra_hosts',
      },
    ],
    ['Dns', { declared: lookups.dns, key: (entry) => canonicalIp(entry) ?? entry, file: 'dns' }],
    ['DnsSearch', { declared: lookups.dnsSearch, key: same, file: 'dns_search' }],
    ['DnsOptions', { declared: lookups.dnsOptions, key: same, file: 'dns_opt' }],
  ]
  for (const [name, check] of checks) {
    const refusal = listRefusal(service, strings(config[name]), check, `${prefix}${name}`)
    if (refusal) return refusal
  }
  return linksRefusal(project, service, strings(config.Links), `${prefix}Links`)
}
