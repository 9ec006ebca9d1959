/**
 * Which requests carry a body or query the proxy must look at, by endpoint (pure), read on the canonical
 * path as the engine's router reads it (engine-routes.ts):
 * - endpoints that take no body: container (and libpod pod) start, stop, restart, kill, pause, unpause.
 *   API versions below 1.24 apply a HostConfig sent to start (privileged, host mounts) and nothing ever
 *   needs a body there, so any body on them is refused at every version;
 * - the guard kind of an endpoint whose body or query can reach the host (body-guard.ts reads it), or
 *   `refused` where the guard cannot read what reaches the host (plugin installs, swarm init and join,
 *   libpod's own container and pod specs, BuildKit sessions);
 * - the API version of the path: below 1.24 any other write with a body is guarded as a create body.
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
  return undefined
}

/** What the guard reads of a request, by endpoint. */
export type GuardKind =
  | 'container-create'
  | 'container-update'
  | 'exec-create'
  | 'archive-upload'
  | 'service'
  | 'volume-create'
  | 'libpod-volume-create'
  | 'build'
  | 'image-load'
  | 'image-create'
  | 'refused'
  /** A write with a body under an API version below 1.24: read as a create body. */
  | 'legacy'

const guardedEndpoints: readonly [method: string, path: RegExp, kind: GuardKind][] = [
  ['POST', enginePath('/containers/create'), 'container-create'],
  ['POST', enginePath(`/containers/${anyName}/update`), 'container-update'],
  ['POST', enginePath(`${anyContainer}/exec`), 'exec-create'],
  ['PUT', enginePath(`${anyContainer}/archive`), 'archive-upload'],
  ['POST', enginePath(`/services/(?:create|${anyName}/update)`), 'service'],
  ['POST', enginePath('/volumes/create'), 'volume-create'],
  ['POST', enginePath('/libpod/volumes/create'), 'libpod-volume-create'],
  ['POST', enginePath('/build'), 'build'],
  ['POST', enginePath('(?:(?:/libpod)?/images/load|/libpod/images/import)'), 'image-load'],
  ['POST', enginePath('/images/create'), 'image-create'],
  ['POST', enginePath(`/plugins/(?:pull|create|${anyName}/(?:enable|upgrade|set))`), 'refused'],
  ['POST', enginePath('/swarm/(?:init|join)'), 'refused'],
  ['POST', enginePath('/libpod/(?:containers|pods)/create'), 'refused'],
  ['POST', enginePath(`/libpod/containers/${anyName}/(?:update|restore)`), 'refused'],
  ['POST', enginePath('/libpod/(?:play/kube|kube/play|build|containers/import)'), 'refused'],
  ['POST', enginePath('/(?:session|grpc)'), 'refused'],
]

/** Why a `refused` endpoint is refused. */
export const unguardableReason =
  'the host-escape guard cannot check what this endpoint brings onto the host (plugin privileges, swarm membership, libpod specs, BuildKit entitlements); --guard off allows it'

/** The guard kind of `method` on `canonicalPath`, or undefined when the guard has nothing to read. */
export function guardKindOf(method: string, canonicalPath: string): GuardKind | undefined {
  for (const [endpointMethod, path, kind] of guardedEndpoints) {
    if (method === endpointMethod && path.test(canonicalPath)) return kind
  }
  if (method !== 'GET' && method !== 'HEAD' && isLegacyApiVersion(canonicalPath)) return 'legacy'
  return undefined
}
