/**
 * Which requests carry a body the proxy must look at, by endpoint (pure), read on the canonical path as
 * the engine's router reads it (engine-routes.ts):
 * - endpoints that take no body: container (and libpod pod) start, stop, restart, kill, pause, unpause.
 *   API versions below 1.24 apply a HostConfig sent to start (privileged, host mounts) and nothing ever
 *   needs a body there, so any body on them is refused at every version;
 * - the API version of the path: below 1.24 a write request is guarded as a whole.
 */
import { anyContainer, anyName, enginePath } from './engine-routes.js'

/** Endpoints that never take a body (a body there is refused: start applied a HostConfig below 1.24). */
const noBodyEndpoints: readonly RegExp[] = [
  enginePath(`${anyContainer}/(?:start|stop|restart|kill|pause|unpause)`),
  enginePath(`/libpod/pods/${anyName}/(?:start|stop|restart|kill|pause|unpause)`),
]

/** True when `method` on `canonicalPath` is an endpoint that takes no body. */
export function takesNoBody(method: string, canonicalPath: string): boolean {
  return method === 'POST' && noBodyEndpoints.some((endpoint) => endpoint.test(canonicalPath))
}

const versionPrefix = /^\/v([0-9.]+)(?:\/|$)/

const maxGoInt = 2n ** 63n - 1n

/** One part of a version as Go's strconv.Atoi reads it, or 0 where Atoi fails (empty, overflow). */
function versionPart(part: string | undefined): bigint {
  if (part === undefined || !/^[0-9]+$/.test(part)) return 0n
  const value = BigInt(part)
  return value > maxGoInt ? 0n : value
}

/**
 * Moby's version comparison (api/types/versions): dot-separated parts compared as integers, a part that
 * Atoi refuses (empty, as in `1.23.`, or past 2^63) counting as 0, missing parts as 0.
 */
export function compareApiVersions(a: string, b: string): number {
  const left = a.split('.')
  const right = b.split('.')
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = versionPart(left[i])
    const y = versionPart(right[i])
    if (x !== y) return x > y ? 1 : -1
  }
  return 0
}

/**
 * True when the path names an API version below 1.24 (`/v1.23/...`, `/v1.0/...`, `/v./...`), under which
 * the engine applies request fields newer versions ignore (a HostConfig on start). No prefix: the
 * engine's own version.
 */
export function isLegacyApiVersion(canonicalPath: string): boolean {
  const match = versionPrefix.exec(canonicalPath)
  return match !== null && compareApiVersions(match[1]!, '1.24') < 0
}

/** Why a request that carries a body is refused before any guard reads it, or undefined. */
export function bodyRefusal(method: string, canonicalPath: string): string | undefined {
  if (takesNoBody(method, canonicalPath))
    return 'this endpoint takes no body, and a body here is refused (API versions below 1.24 apply a HostConfig sent with start)'
  if (method !== 'GET' && method !== 'HEAD' && isLegacyApiVersion(canonicalPath))
    return 'a request body under an API version below 1.24 is refused (those versions apply fields newer ones ignore)'
  return undefined
}
