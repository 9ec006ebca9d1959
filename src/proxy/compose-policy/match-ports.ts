/**
 * Decides the published ports of a create body under a compose policy (pure): each `PortBindings`
 * entry must be one the service declares in `ports` (the container port and protocol, the host address,
 * the host port), and `PublishAllPorts` is refused (compose has no setting for it: it would publish
 * every exposed port on every address). A binding may be narrower than declared: a port declared on
 * every address may be bound on one, a declared host range may be bound at a port or sub-range of it;
 * a port the file leaves to the engine (`"5432"`, no published port) must be left to the engine.
 * `ExposedPorts` is not read: it opens nothing on the host by itself (only `PublishAllPorts`, refused,
 * would publish it).
 */
import type { Refusal } from '../body-guard.js'
import type { GoStruct, GoValue } from '../go-json.js'
import { hostPortRange } from './declared-ports.js'
import { bindingIp } from './ip-text.js'
import type { DeclaredPort, ServicePolicy } from './policy.js'

const containerPortText = /^([0-9]{1,5})(?:\/(tcp|udp|sctp))?$/
const quoted = (value: string) => JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}...` : value)

/** What the body binds one container port to. */
interface BodyBinding {
  hostIp: string
  hostPort: string
}

const hostText = (port: Pick<DeclaredPort, 'hostIp' | 'hostPorts'>) => {
  const address =
    port.hostIp === '' ? '0.0.0.0' : port.hostIp.includes(':') ? `[${port.hostIp}]` : port.hostIp
  const range = port.hostPorts
  const ports =
    range === undefined
      ? '(a port the engine picks)'
      : range.first === range.last
        ? `${range.first}`
        : `${range.first}-${range.last}`
  return `${address}:${ports}`
}

function bindingDeclared(declared: DeclaredPort, binding: BodyBinding): boolean {
  const hostIp = bindingIp(binding.hostIp)
  if (hostIp === undefined || (declared.hostIp !== '' && declared.hostIp !== hostIp)) return false
  const range = hostPortRange(binding.hostPort)
  if (range === 'invalid') return false
  if (declared.hostPorts === undefined || range === undefined) return declared.hostPorts === range
  return declared.hostPorts.first <= range.first && range.last <= declared.hostPorts.last
}

const bindingsOf = (value: GoValue | undefined): [string, GoStruct[]][] =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.entries(value).map(([key, list]) => [key, Array.isArray(list) ? (list as GoStruct[]) : []])
    : []

/** The refusal of the first published port the service does not declare, or null. */
export function portsRefusal(service: ServicePolicy, config: GoStruct, prefix: string): Refusal | null {
  const name = `service "${service.name}"`
  if (config.PublishAllPorts === true)
    return {
      field: `${prefix}PublishAllPorts`,
      reason: `${name} cannot declare PublishAllPorts (every exposed port on every address); publish ports with ports: (${prefix}PublishAllPorts)`,
    }
  for (const [key, bindings] of bindingsOf(config.PortBindings)) {
    const field = `${prefix}PortBindings.${key}`
    const match = containerPortText.exec(key)
    if (!match)
      return { field, reason: `${name}: ${quoted(key)} is not PORT/tcp, PORT/udp or PORT/sctp (${field})` }
    const port = `${Number(match[1])}/${match[2] ?? 'tcp'}`
    const declared = service.ports.filter((entry) => `${entry.container}/${entry.protocol}` === port)
    for (const [index, binding] of bindings.entries()) {
      const body = { hostIp: String(binding?.HostIp ?? ''), hostPort: String(binding?.HostPort ?? '') }
      if (declared.some((entry) => bindingDeclared(entry, body))) continue
      const sent = `${body.hostIp === '' ? '0.0.0.0' : body.hostIp}:${body.hostPort === '' ? '(a port the engine picks)' : body.hostPort}`
      return {
        field,
        reason:
          declared.length === 0
            ? `${name} does not publish ${port} (${field}[${index}] ${quoted(sent)})`
            : `${name} publishes ${port} only at ${declared.map(hostText).join(', ')}, not ${quoted(sent)} (${field}[${index}])`,
      }
    }
  }
  return null
}
