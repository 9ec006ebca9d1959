/**
 * IP addresses as the compose policy compares them (pure): one spelling per address, so that a file's
 * `::1` and a body's `0:0::1` are the same, and the engine's ways of saying "every address" for a
 * published port are one.
 */
import { isIP } from 'node:net'

/**
 * An address in one spelling: brackets dropped, IPv6 compressed and lower-case (WHATWG URL's
 * serialisation); undefined for text that is not an IP address.
 */
export function canonicalIp(text: string): string | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  const family = isIP(bare)
  if (family === 0) return undefined
  if (family === 4) return bare
  // a zone (`fe80::1%eth0`) is an address isIP takes and a URL does not: not one this compares
  return URL.canParse(`http://[${bare}]/`) ? new URL(`http://[${bare}]/`).hostname.slice(1, -1) : undefined
}

/** What a port binding writes for "every address": `HostIp` empty, or an unspecified address. */
const everyAddress = new Set(['', '0.0.0.0', '::'])

/** A port binding's host address in one spelling, '' for every address; undefined for one that is not. */
export function bindingIp(text: string): string | undefined {
  if (text === '') return ''
  const canonical = canonicalIp(text)
  return canonical === undefined ? undefined : everyAddress.has(canonical) ? '' : canonical
}
