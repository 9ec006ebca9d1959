/**
 * The canonical path of a request target: the only string rules are matched against and the path that
 * is forwarded. Percent-decoded exactly once, checked for valid UTF-8 and control characters, cleaned
 * like Go's path.Clean (keeping a trailing slash), query excluded. Never goes through `new URL()`.
 */
import { posix } from 'node:path'

/**
 * The longest API-version prefix read (`/v1.41`; Moby's router takes `/v{version:[0-9.]+}`): every rule
 * pattern starts with `(?:/v[0-9]+(?:\.[0-9]+)*)?`, which backtracks once per dot of a prefix that fails
 * to match, so a long `/v1.1.1…/x` cost each rule time in proportion to its length (figures:
 * docs/proxy-performance.md, "Code comments' figures"). Bounded here, every rule's backtracking into the
 * prefix is bounded too.
 */
export const maxVersionPrefixLength = 64

/** The length of the `[0-9.]` run after a leading `/v` (0 when the path does not start that way). */
function versionRunLength(path: string): number {
  if (!path.startsWith('/v')) return 0
  let end = 2
  while (end < path.length) {
    const code = path.charCodeAt(end)
    if (code !== 46 && (code < 48 || code > 57)) break
    end++
  }
  return end - 2
}

/** A request target reduced to what the proxy matches and forwards. */
export type CanonicalTarget =
  | { kind: 'path'; path: string; query: string; forwardTarget: string }
  | { kind: 'asterisk' }
  | { kind: 'invalid'; reason: string }

const utf8 = new TextDecoder('utf-8', { fatal: true })
const absoluteForm = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/
const keptInForwardedPath = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/
const alreadyCanonical = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9\-._~!$&'()*+,;=:@]+)*\/?$/

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 65 && code <= 70) return code - 55
  if (code >= 97 && code <= 102) return code - 87
  return -1
}

/** Percent-decodes a path once; returns undefined for a bad escape or invalid UTF-8. */
export function decodePathOnce(rawPath: string): string | undefined {
  const raw = Buffer.from(rawPath, 'latin1')
  const bytes = Buffer.allocUnsafe(raw.length)
  let length = 0
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i]!
    if (byte !== 0x25) {
      bytes[length++] = byte
      continue
    }
    const high = hexValue(raw[i + 1] ?? 0)
    const low = hexValue(raw[i + 2] ?? 0)
    if (high < 0 || low < 0) return undefined
    bytes[length++] = high * 16 + low
    i += 2
  }
  try {
    return utf8.decode(bytes.subarray(0, length))
  } catch {
    return undefined
  }
}

/** Cleans a rooted path like Go's path.Clean, keeping a trailing slash that was there. */
export function cleanPath(decodedPath: string): string {
  const cleaned = posix.normalize(decodedPath)
  return cleaned.startsWith('/') ? cleaned : `/${cleaned}`
}

/** Percent-encodes what must not travel raw in a forwarded path (so the engine decodes back to it). */
function encodeForwardedPath(path: string): string {
  let encoded = ''
  for (const char of path) {
    if (keptInForwardedPath.test(char)) encoded += char
    else
      for (const byte of Buffer.from(char, 'utf8'))
        encoded += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return encoded
}

/**
 * Reduces a raw request target (origin-form, absolute-form or `*`) to its canonical path and query.
 * Invalid targets (bad escapes, invalid UTF-8, control characters, no leading slash) are reported.
 */
export function canonicalizeTarget(rawTarget: string): CanonicalTarget {
  if (rawTarget === '*') return { kind: 'asterisk' }
  let target = rawTarget
  const absolute = absoluteForm.exec(target)
  if (absolute) target = target.slice(absolute[0].length) || '/'
  if (!target.startsWith('/')) return { kind: 'invalid', reason: 'the request target is not a path' }
  const queryStart = target.indexOf('?')
  const rawPath = queryStart === -1 ? target : target.slice(0, queryStart)
  const query = queryStart === -1 ? '' : target.slice(queryStart)
  if (alreadyCanonical.test(rawPath))
    return withVersionBound({ kind: 'path', path: rawPath, query, forwardTarget: rawPath + query })
  if (rawPath.includes('#')) return { kind: 'invalid', reason: 'the path contains a raw "#"' }
  const decoded = decodePathOnce(rawPath)
  if (decoded === undefined) {
    return { kind: 'invalid', reason: 'the path has an invalid percent-escape or is not valid UTF-8' }
  }
  if (controlCharacter.test(decoded))
    return { kind: 'invalid', reason: 'the path contains a control character' }
  const path = cleanPath(decoded)
  return withVersionBound({ kind: 'path', path, query, forwardTarget: encodeForwardedPath(path) + query })
}

/** The target, or invalid when its API-version prefix is longer than maxVersionPrefixLength. */
function withVersionBound(target: CanonicalTarget & { kind: 'path' }): CanonicalTarget {
  if (versionRunLength(target.path) <= maxVersionPrefixLength) return target
  return {
    kind: 'invalid',
    reason: `the API version in the path is longer than ${maxVersionPrefixLength} characters`,
  }
}
