/**
 * The client address of a request. X-Forwarded-For is read only when the TCP peer is a trusted proxy
 * (`--trusted-proxies`), and then from the right: the address is the right-most hop that is not itself
 * a trusted proxy (proxy-addr, as used by Express), so a client cannot choose it by writing the header.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import proxyAddr from 'proxy-addr'
import { UsageError } from '../../errors.js'

/** Decides whether an address (a TCP peer or a forwarded hop) is a trusted proxy. */
export type ProxyTrust = (address: string, hop: number) => boolean

/** Trusts nobody: X-Forwarded-For is ignored. */
export const trustNoProxy: ProxyTrust = () => false

/**
 * Compiles `--trusted-proxies`: CIDR ranges or addresses, comma-separated, or the names `loopback`,
 * `linklocal` and `uniquelocal`. An empty list trusts nobody.
 */
export function compileTrustedProxies(list: string | string[] | undefined): ProxyTrust {
  const entries = (Array.isArray(list) ? list : (list ?? '').split(','))
    .map((entry) => entry.trim())
    .filter(Boolean)
  if (entries.length === 0) return trustNoProxy
  try {
    return proxyAddr.compile(entries)
  } catch (error) {
    throw new UsageError(`--trusted-proxies: ${(error as Error).message}`, {
      hint: 'give CIDR ranges or addresses, e.g. --trusted-proxies 10.0.0.0/8,172.16.0.0/12',
    })
  }
}

/** The client's address: the TCP peer, or the right-most untrusted X-Forwarded-For hop behind trusted proxies. */
export function clientAddress(request: IncomingMessage, trust: ProxyTrust): string {
  const peer = request.socket.remoteAddress ?? 'unknown'
  if (trust === trustNoProxy) return peer
  const address = proxyAddr({ headers: request.headers, socket: request.socket } as IncomingMessage, trust)
  return isIP(address) ? address : peer
}

/**
 * The key that limits and coalescing count a client address under: an IPv4 address (IPv4-mapped
 * IPv6 included) as itself, an IPv6 address by its /64, since one host or customer holds a whole /64
 * and could otherwise rotate through 2^64 fresh addresses.
 */
export function sourceKey(address: string): string {
  if (!ipaddr.isValid(address)) return address
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`
}
