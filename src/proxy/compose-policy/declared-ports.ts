/**
 * A service's `ports` as the compose policy compares them (pure): vault's compose loader has already
 * turned the short syntax into compose's long one, one entry per container port (`8000-8002:9000-9002`
 * is three; `7000-7010:80` one with a host range), so this reads `target`, `published`, `host_ip` and
 * `protocol`. `expose` is not read: it opens nothing on the host (match-ports.ts).
 */
import { bindingIp } from './ip-text.js'
import type { DeclaredPort } from './policy.js'

type Model = Record<string, unknown>

const portText = /^[0-9]{1,5}$/
const rangeText = /^([0-9]{1,5})(?:-([0-9]{1,5}))?$/

/** `published` (or a body's `HostPort`) as a range; undefined for a port the engine picks ('' or 0). */
export function hostPortRange(text: string): { first: number; last: number } | undefined | 'invalid' {
  if (text === '') return undefined
  const match = rangeText.exec(text)
  if (!match) return 'invalid'
  const first = Number(match[1])
  const last = match[2] === undefined ? first : Number(match[2])
  if (first > last || last > 65535) return 'invalid'
  return first === 0 && last === 0 ? undefined : { first, last }
}

/** One long-syntax entry; undefined for one that does not parse (then nothing is declared by it). */
function declaredPort(entry: unknown): DeclaredPort | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined
  const spec = entry as Model
  const target = typeof spec.target === 'number' ? String(spec.target) : spec.target
  if (typeof target !== 'string' || !portText.test(target)) return undefined
  const published = typeof spec.published === 'number' ? String(spec.published) : (spec.published ?? '')
  const hostIp = spec.host_ip === undefined || spec.host_ip === null ? '' : bindingIp(String(spec.host_ip))
  if (typeof published !== 'string' || hostIp === undefined) return undefined
  const hostPorts = hostPortRange(published)
  if (hostPorts === 'invalid') return undefined
  const protocol = typeof spec.protocol === 'string' && spec.protocol !== '' ? spec.protocol : 'tcp'
  return { container: Number(target), protocol: protocol.toLowerCase(), hostIp, hostPorts }
}

/** The ports a service publishes. */
export function declaredPorts(ports: unknown): DeclaredPort[] {
  return (Array.isArray(ports) ? ports : [])
    .map(declaredPort)
    .filter((port): port is DeclaredPort => port !== undefined)
}
