/**
 * The SSRF guard of webhooks: a receiver URL is http(s) only, its host is resolved, and every address
 * it resolves to must be public unicast (ipaddr.js ranges): loopback, unspecified (0.0.0.0), link-local
 * (169.254.169.254, the cloud metadata address), private, CGNAT, unique-local, multicast, reserved and
 * the IPv4-mapped, NAT64, 6to4 and Teredo forms of any of them are refused unless private receivers are
 * allowed, and so is every IPv4-compatible address (deprecated). The delivery then connects to the
 * address that was checked (see `pinnedLookup`).
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { UsageError } from '../../errors.js'

/** Resolves a host name to all its addresses (injectable for tests). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

/** A receiver whose address was checked. */
export interface CheckedTarget {
  url: URL
  address: string
  family: 4 | 6
}

/** Why an address is not a public receiver ('loopback', 'private', 'linkLocal', ...), or undefined. */
export function refusedRange(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(address)
  } catch {
    return 'unparsable'
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  }
  const range = parsed.range()
  if (range === 'unicast' && parsed.kind() === 'ipv6' && isIpv4Compatible(parsed as ipaddr.IPv6))
    return 'ipv4Compatible'
  return range === 'unicast' ? undefined : range
}

/**
 * An IPv4-compatible IPv6 address (`::a.b.c.d`, ::/96 in RFC 4291, deprecated): ipaddr.js calls it
 * unicast, but it names an IPv4 address (`::7f00:1` is 127.0.0.1) that the ranges above did not see.
 */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  return address.parts.slice(0, 6).every((part) => part === 0)
}

/** Parses a receiver URL: http or https, no fragment needed; throws UsageError otherwise. */
export function parseReceiverUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError('the webhook URL is not a URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError('webhook URLs are http(s)')
  return url
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '')
}

/**
 * Resolves the receiver before `deadline` and checks every address; throws UsageError naming the refused
 * address and its range unless `allowPrivate`. Returns the first address, which the delivery must
 * connect to.
 */
export async function checkReceiver(
  url: URL,
  options: { allowPrivate: boolean; resolve?: Resolver; deadline: AbortSignal },
): Promise<CheckedTarget> {
  const addresses = await beforeDeadline((options.resolve ?? systemResolver)(bareHost(url)), options.deadline)
  if (addresses.length === 0) throw new UsageError(`${bareHost(url)} does not resolve`)
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const range = refusedRange(address)
      if (range !== undefined) {
        throw new UsageError(`refusing webhook receiver ${bareHost(url)}: ${address} is ${range}`, {
          hint: 'receivers must be public addresses; --allow-private permits loopback and private ones',
        })
      }
    }
  }
  const [first] = addresses
  return { url, address: first!.address, family: first!.family === 6 ? 6 : 4 }
}

/**
 * `lookup`, or an Error (not a UsageError: the name may resolve later) once `deadline` has passed: a
 * name server that never answers holds neither the delivery worker nor a registration's transaction.
 */
function beforeDeadline<T>(lookup: Promise<T>, deadline: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const expired = () => reject(new Error('the name server did not answer in time'))
    if (deadline.aborted) return expired()
    deadline.addEventListener('abort', expired, { once: true })
    lookup.then(resolve, reject).finally(() => deadline.removeEventListener('abort', expired))
  })
}

/** A `lookup` for node:http(s) that answers with the checked address only (no second resolution). */
export function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      ;(callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ])
    } else callback(null, target.address, target.family)
  }
}

/** Whether the receiver's host is loopback (http:// is fine there). */
export function isLoopbackTarget(url: URL): boolean {
  const host = bareHost(url)
  return host === 'localhost' || refusedRange(host) === 'loopback'
}

/** The URL with its userinfo (user:password@) hidden, for listings and the audit log. */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text)
    if (url.username === '' && url.password === '') return text
    url.username = '***'
    url.password = ''
    return url.toString()
  } catch {
    return text.replace(/\/\/[^/@]*@/, '//***@')
  }
}
