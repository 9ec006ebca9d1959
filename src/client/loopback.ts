/**
 * Plain http:// is allowed only to loopback. `localhost`, 127.0.0.0/8 and ::1 are loopback as written;
 * a `*.localhost` name is only a name: whether it is loopback depends on what the resolver answers
 * (DNS, /etc/hosts), so it is resolved at connect time and the connection goes to the checked address
 * or nowhere (a lookup that refuses any non-loopback answer, used by the socket itself: no second
 * resolution an attacker could answer differently).
 */
import type { LookupAddress, LookupOptions } from 'node:dns'
import type { LookupFunction } from 'node:net'

/** True for `localhost`, 127.0.0.0/8 and ::1 as written (no resolution). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost') return true
  return isLoopbackAddress(host)
}

/** True for a `*.localhost` name: loopback only if it resolves to loopback addresses. */
export function isLocalhostName(hostname: string): boolean {
  return hostname.toLowerCase().endsWith('.localhost')
}

/** True for an IP address in 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104. */
export function isLoopbackAddress(address: string): boolean {
  const host = address.replace(/^::ffff:/i, '')
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true
  return host === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(host)
}

type Resolve = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void

/** The Node-style code of the refusal (a NetworkError's reason). */
export const notLoopbackCode = 'ERR_NOT_LOOPBACK'

/**
 * A socket `lookup` that resolves with `resolve` (dns.lookup by default) and fails with
 * ERR_NOT_LOOPBACK unless every address it got is loopback.
 */
export function loopbackOnlyLookup(resolve?: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const lookup = resolve ?? (process.getBuiltinModule('node:dns') as typeof import('node:dns')).lookup
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0)
      const outside = addresses.find((entry) => !isLoopbackAddress(entry.address))
      if (outside || addresses.length === 0) {
        const refusal: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${outside?.address ?? 'nothing'}, not a loopback address`,
        )
        refusal.code = notLoopbackCode
        return callback(refusal, '', 0)
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses)
      callback(null, addresses[0]!.address, addresses[0]!.family)
    })
  }
}
