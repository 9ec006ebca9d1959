/**
 * The client address of a request. X-Forwarded-For is read only when the TCP peer is a trusted proxy
 * (`--trusted-proxies`), and then from the right: the address is the right-most hop that is not itself
 * a trusted proxy (proxy-addr, as used by Express), so a client cannot choose it by writing the header.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import proxyAddr from 'proxy-addr'
import { UsageError } from '../errors.js'

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
