/**
 * The host-escape guard of one request (pure), on by default: from the endpoint (guard-endpoints.ts),
 * its query and, where needed, its whole body, whether it may reach the engine. A body is decoded as
 * dockerd decodes it (go-json.ts, guard-shapes.ts) and judged by body-guard.ts; one that cannot be
 * decoded whole is refused (fail closed): not UTF-8 JSON, not `application/json`, a key repeated in
 * one object, a guarded field of the wrong type. Archive uploads may only put regular files under
 * /run/secrets (compose's secrets from `environment:`); builds may not use the host network; image
 * loads need --allow-image-load. Used by the proxy (forward.ts) and `vault proxy check`.
 */
import { posix } from 'node:path'
import {
  hostConfigRefusal,
  resourcesRefusal,
  serviceRefusal,
  volumeDriverRefusal,
  type GuardOptions,
  type Refusal,
} from './body-guard.js'
import { queryPairs } from './env-refusal.js'
import { decodeGoJson, DecodeError, type GoShape, type GoStruct } from './go-json.js'
import { guardKindOf, unguardableReason, type GuardKind } from './guard-endpoints.js'
import {
  containerCreateShape,
  containerUpdateShape,
  execCreateShape,
  libpodVolumeCreateShape,
  serviceSpecShape,
  volumeCreateShape,
} from './guard-shapes.js'
import { tarEntries } from './tar-entries.js'

export type { GuardOptions, Refusal } from './body-guard.js'

/** The guard's settings: on or off, and what it allows beyond its defaults. */
export interface GuardSettings extends GuardOptions {
  enabled: boolean
}

/** The largest body the guard reads; a larger one is refused (fail closed). */
export const guardBodyLimit = 1 << 20

/** What the guard needs to decide a request. */
export type GuardPlan =
  { action: 'pass' } | { action: 'refuse'; refusal: Refusal } | { action: 'read-body'; kind: GuardKind }

/** The values of `name` in a raw query, as the engine decodes them; undefined for a bad escape. */
function queryValues(query: string, name: string): string[] | undefined {
  return queryPairs(query)
    ?.filter(([key]) => key === name)
    .map(([, value]) => value)
}

const imageLoadRefusal: Refusal = {
  field: 'endpoint',
  reason: 'image loads and imports are refused (--allow-image-load allows them)',
  allowance: { kind: 'image-load' },
}

/** Decides what the guard needs for a request that the rules allow; `hasBody` when it carries one. */
export function planGuard(
  settings: GuardSettings,
  request: { method: string; path: string; query: string; hasBody: boolean },
): GuardPlan {
  if (!settings.enabled) return { action: 'pass' }
  const kind = guardKindOf(request.method, request.path)
  if (kind === undefined) return { action: 'pass' }
  if (kind === 'refused')
    return { action: 'refuse', refusal: { field: 'endpoint', reason: unguardableReason } }
  if (kind === 'build') {
    const modes = queryValues(request.query, 'networkmode')
    if (modes === undefined || modes.some((mode) => mode.trim().toLowerCase() === 'host'))
      return {
        action: 'refuse',
        refusal: {
          field: 'networkmode',
          reason: 'builds on the host network are refused',
          undecodable: modes === undefined,
        },
      }
    return { action: 'pass' }
  }
  if (kind === 'image-load' || kind === 'image-create') {
    const sources = queryValues(request.query, 'fromSrc')
    const importing =
      kind === 'image-load' || sources === undefined || sources.some((source) => source !== '')
    return importing && !settings.allowImageLoad
      ? { action: 'refuse', refusal: imageLoadRefusal }
      : { action: 'pass' }
  }
  return request.hasBody ? { action: 'read-body', kind } : { action: 'pass' }
}

const shapes: Partial<Record<GuardKind, Extract<GoShape, { kind: 'struct' }>>> = {
  'container-create': containerCreateShape,
  legacy: containerCreateShape,
  'container-update': containerUpdateShape,
  'exec-create': execCreateShape,
  service: serviceSpecShape,
  'volume-create': volumeCreateShape,
  'libpod-volume-create': libpodVolumeCreateShape,
}

function verdict(kind: GuardKind, view: GoStruct, options: GuardOptions): Refusal | null {
  switch (kind) {
    case 'container-create':
    case 'legacy':
      return (
        hostConfigRefusal(view.HostConfig as GoStruct | null, 'HostConfig.', options) ??
        hostConfigRefusal(view, '', options)
      )
    case 'container-update':
      return resourcesRefusal(view, '')
    case 'exec-create':
      return view.Privileged === true ? { field: 'Privileged', reason: 'privileged execs are refused' } : null
    case 'service':
      return serviceRefusal(view, options)
    case 'volume-create':
      return volumeDriverRefusal(view.Driver!, view.DriverOpts!, 'DriverOpts', options)
    case 'libpod-volume-create':
      return volumeDriverRefusal(view.Driver!, view.Options!, 'Options', options)
    default:
      return { field: 'endpoint', reason: unguardableReason }
  }
}

/** Archive uploads: regular files under /run/secrets only. */
function archiveRefusal(query: string, body: Buffer): Refusal | null {
  const paths = queryValues(query, 'path')
  const destination = paths?.[0]
  if (
    destination === undefined ||
    !destination.startsWith('/') ||
    paths!.some((path) => path !== destination)
  )
    return { field: 'path', reason: 'an archive upload needs one absolute path', undecodable: true }
  const entries = tarEntries(body)
  if (typeof entries === 'string') return { field: 'archive', reason: entries, undecodable: true }
  for (const entry of entries) {
    const target = posix.normalize(posix.join(destination, entry.name))
    if ((entry.type !== '0' && entry.type !== '\0') || !target.startsWith('/run/secrets/'))
      return {
        field: 'archive',
        reason: `archive uploads may only write regular files under /run/secrets (not "${target.slice(0, 80)}")`,
      }
  }
  return null
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** The media type of a Content-Type header (lower case, without parameters). */
const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase()

/** Judges the whole body of a request planned `read-body`; null when it may go to the engine. */
export function judgeBody(
  kind: GuardKind,
  request: { query: string; contentType?: string; body: Buffer },
  options: GuardOptions,
): Refusal | null {
  return bodyJudge(kind, request)(options)
}

/**
 * The body decoded once, judged under any settings (learn mode judges one body again with each
 * allowance it learns: decoding a 1 MB body 64 times held the event loop for over a second).
 */
export function bodyJudge(
  kind: GuardKind,
  request: { query: string; contentType?: string; body: Buffer },
): (options: GuardOptions) => Refusal | null {
  const { body } = request
  const always = (refusal: Refusal | null) => () => refusal
  if (body.length === 0) return always(null)
  if (kind === 'archive-upload') return always(archiveRefusal(request.query, body))
  const shape = shapes[kind]
  if (!shape) return always({ field: 'endpoint', reason: unguardableReason })
  if (mediaType(request.contentType) !== 'application/json')
    return always({
      field: 'Content-Type',
      reason: 'the body must be sent as application/json',
      undecodable: true,
    })
  let view: GoStruct
  try {
    view = decodeGoJson(utf8.decode(body), shape)
  } catch (error) {
    if (error instanceof DecodeError)
      return always({ field: error.field, reason: error.message, undecodable: true })
    if (error instanceof TypeError)
      return always({ field: 'body', reason: 'the body is not UTF-8', undecodable: true })
    throw error
  }
  return (options) => verdict(kind, view, options)
}
