/**
 * The requests a compose policy lets through, and how each is decided (pure, but for the engine reads
 * it is given). The rule set (`composeRules`): what `docker-compose` v1 and `docker compose` v2 send
 * for up, restart, stop, down, ps and logs. The decision of each write (`planComposeRequest`):
 * - a container create: the body matched to its service (match-create.ts);
 * - start, stop, restart, kill, wait, rename, logs and remove of a container: only a container
 *   of the project (its label com.docker.compose.project, read from the engine); the request is then
 *   sent for the container's id, so that a rename in between cannot swap the container;
 * - a network or volume create: one the project declares, by engine name, with its labels, driver and
 *   driver options; connect and disconnect: the project's container to a network its service joins,
 *   with only the aliases, addresses and links it declares (match-lookups.ts);
 *   network and volume removal: the project's own (by label);
 * - an image pull: an image a service names; an import (`fromSrc`) never.
 * Reads (lists, inspects, events) pass as the rules allow them.
 */
import type { Refusal, GuardOptions } from '../body-guard.js'
import { volumeDriverRefusal } from '../body-guard.js'
import { decodeGoJson, DecodeError, type GoShape, type GoStruct } from '../go-json.js'
import { queryPairs } from '../env-refusal.js'
import type { EngineRead } from './engine-read.js'
import { createRefusal, ownValue, projectLabel, serviceOfLabels } from './match-create.js'
import { endpointAddresses, endpointRefusal } from './match-lookups.js'
import { imageForms, ipamKey, type ComposePolicy, type DeclaredObject } from './policy.js'
import { composeCreateShape, networkConnectShape, networkCreateShape, volumeCreateShape } from './shapes.js'

/** The rule text of a compose policy's rule set (the built-in rules come before it). */
export const composeRulesText = `# compose policy: what docker-compose needs for up, restart, stop, down, ps and logs
GET,HEAD %API_PREFIX%/containers/json
GET,HEAD %API_PREFIX%/containers/%CONTAINER_ID_OR_NAME%/(json|logs)
POST %API_PREFIX%/containers/create
POST %API_PREFIX%/containers/%CONTAINER_ID_OR_NAME%/(start|stop|restart|kill|wait|rename)
DELETE %API_PREFIX%/containers/%CONTAINER_ID_OR_NAME%
GET,HEAD %API_PREFIX%/images/json
GET,HEAD %API_PREFIX%/images/%IMAGE_ID_OR_REFERENCE%/json
POST %API_PREFIX%/images/create
GET,HEAD %API_PREFIX%/networks
GET,HEAD %API_PREFIX%/networks/%NETWORK_ID_OR_NAME%
POST %API_PREFIX%/networks/create
POST %API_PREFIX%/networks/%NETWORK_ID_OR_NAME%/(connect|disconnect)
DELETE %API_PREFIX%/networks/%NETWORK_ID_OR_NAME%
GET,HEAD %API_PREFIX%/volumes
GET,HEAD %API_PREFIX%/volumes/%VOLUME_ID_OR_NAME%
POST %API_PREFIX%/volumes/create
DELETE %API_PREFIX%/volumes/%VOLUME_ID_OR_NAME%
GET %API_PREFIX%/events
`

/** A request the rules allowed, on its canonical path. */
export interface PolicyRequest {
  method: string
  path: string
  /** The raw query, with its `?`. */
  query: string
}

/** The body of a request the policy reads. */
export interface PolicyBody {
  body: Buffer
  contentType?: string
}

/** Where the request goes when the policy allows it: its target (rewritten to an id) or as it came. */
export type PolicyVerdict = Refusal | { target?: string }

export type PolicyPlan =
  | { action: 'pass' }
  | { action: 'refuse'; refusal: Refusal }
  | {
      action: 'decide'
      decide: (body: PolicyBody, read: EngineRead) => Promise<PolicyVerdict>
      /** Set where the body alone decides (creates): `vault proxy check --body` uses it. */
      judge?: (body: PolicyBody) => PolicyVerdict
    }

const version = String.raw`(/v[0-9.]+)?`
const containerCreate = new RegExp(String.raw`^${version}/containers/create/?$`)
const containerAction = new RegExp(
  String.raw`^${version}/containers/([^/]+)(/(?:start|stop|restart|kill|wait|rename|logs))?/?$`,
)
const networkCreate = new RegExp(String.raw`^${version}/networks/create/?$`)
const networkAction = new RegExp(String.raw`^${version}/networks/([^/]+)(/(?:connect|disconnect))?/?$`)
const volumeCreate = new RegExp(String.raw`^${version}/volumes/create/?$`)
const volumeRemove = new RegExp(String.raw`^${version}/volumes/([^/]+)/?$`)
const imageCreate = new RegExp(String.raw`^${version}/images/create/?$`)

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const quoted = (value: string) => JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}...` : value)
const labelsOf = (value: unknown): Record<string, string> => {
  const labels = (value as { Labels?: unknown } | null)?.Labels
  return labels !== null && typeof labels === 'object' ? (labels as Record<string, string>) : {}
}

/** A body decoded as dockerd would (go-json.ts), or the refusal naming what cannot be decoded. */
function decoded(body: PolicyBody, shape: Extract<GoShape, { kind: 'struct' }>): GoStruct | Refusal {
  if ((body.contentType ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json')
    return { field: 'Content-Type', reason: 'the body must be sent as application/json' }
  try {
    return decodeGoJson(utf8.decode(body.body), shape)
  } catch (error) {
    if (error instanceof DecodeError) return { field: error.field, reason: error.message }
    if (error instanceof TypeError) return { field: 'body', reason: 'the body is not UTF-8' }
    throw error
  }
}

const isRefusal = (value: unknown): value is Refusal =>
  typeof value === 'object' && value !== null && 'reason' in value

/** The id of a project's object read from the engine, or the refusal; `kind` names it in messages. */
async function projectObject(
  policy: ComposePolicy,
  read: EngineRead,
  target: string,
  what: string,
): Promise<Refusal | { id: string; json: Record<string, unknown> } | 'absent'> {
  const answer = await read(target)
  if ('failed' in answer)
    return { field: 'engine', reason: `${what} could not be read from the engine (${answer.failed})` }
  if (answer.status === 404) return 'absent'
  const json = answer.json as Record<string, unknown> | undefined
  if (answer.status !== 200 || json === undefined || json === null)
    return { field: 'engine', reason: `the engine answered ${answer.status} when asked for ${what}` }
  const labels = labelsOf(json.Config ?? json)
  const project = ownValue(labels, projectLabel)
  if (project !== policy.project)
    return {
      field: projectLabel,
      reason: `${what} is not project "${policy.project}"'s (its label ${projectLabel} is ${project === undefined ? 'absent' : quoted(project)})`,
    }
  return { id: String(json.Id ?? json.Name), json }
}

/**
 * The verdict on acting on the project's container, network or volume `name` (read at `path`): refused
 * when it is another project's or cannot be read, forwarded by its id when `byId` makes the target
 * (a rename in between cannot swap it), passed unchanged when absent (the engine answers 404 itself).
 */
async function ownedObjectVerdict(
  policy: ComposePolicy,
  read: EngineRead,
  object: { kind: 'container' | 'network' | 'volume'; name: string; path: string },
  byId?: (id: string) => string,
): Promise<PolicyVerdict> {
  const owned = await projectObject(policy, read, object.path, `${object.kind} ${quoted(object.name)}`)
  if (owned === 'absent') return {}
  if (isRefusal(owned)) return { ...owned, field: object.kind }
  return byId ? { target: byId(owned.id) } : {}
}

function objectRefusal(
  policy: ComposePolicy,
  view: GoStruct,
  declared: ReadonlyMap<string, DeclaredObject>,
  what: 'network' | 'volume',
): Refusal | DeclaredObject {
  const labels = (view.Labels ?? {}) as Record<string, string>
  const project = ownValue(labels, projectLabel)
  if (project !== policy.project)
    return {
      field: `Labels.${projectLabel}`,
      reason: `a ${what} create of project ${project === undefined ? '(none)' : quoted(project)}, not "${policy.project}" (Labels.${projectLabel})`,
    }
  const name = String(view.Name)
  const object = declared.get(name)
  if (object === undefined)
    return { field: 'Name', reason: `project "${policy.project}" declares no ${what} ${quoted(name)} (Name)` }
  return object
}

/** The driver and options of a network or volume create against the declared ones. */
function driverRefusal(
  object: DeclaredObject,
  view: GoStruct,
  fields: { driver: string; options: string },
  what: string,
): Refusal | Record<string, string> {
  const driver = String(view[fields.driver])
  const defaults = what === 'network' ? ['', 'bridge'] : ['', 'local']
  const same = driver === object.driver || (defaults.includes(driver) && defaults.includes(object.driver))
  if (!same)
    return {
      field: fields.driver,
      reason: `${what} ${quoted(object.name)} is declared with driver ${quoted(object.driver || defaults[1]!)}, not ${quoted(driver)} (${fields.driver})`,
    }
  const options = (view[fields.options] ?? {}) as Record<string, string>
  const undeclared: Record<string, string> = {}
  for (const key of Object.keys(options))
    if (object.options.get(key) !== options[key]) undeclared[key] = options[key]!
  return undeclared
}

function decideNetworkCreate(policy: ComposePolicy, body: PolicyBody): PolicyVerdict {
  const view = decoded(body, networkCreateShape)
  if (isRefusal(view)) return view
  const object = objectRefusal(policy, view, policy.networks, 'network')
  if (isRefusal(object)) return object
  if (view.Ingress === true || (view.ConfigFrom as GoStruct | null)?.Network)
    return {
      field: 'Ingress',
      reason: `network ${quoted(object.name)} is declared without ingress or config-from`,
    }
  const options = driverRefusal(object, view, { driver: 'Driver', options: 'Options' }, 'network')
  if (isRefusal(options)) return options
  const pools = ((view.IPAM as GoStruct | null)?.Config ?? []) as GoStruct[]
  for (const [index, pool] of pools.entries()) {
    const key = ipamKey(String(pool.Subnet), String(pool.IPRange), String(pool.Gateway))
    if (!object.ipam.has(key))
      return {
        field: `IPAM.Config[${index}]`,
        reason: `network ${quoted(object.name)} does not declare the address pool ${quoted(key.trim())} (IPAM.Config[${index}])`,
      }
  }
  const key = Object.keys(options)[0]
  return key === undefined
    ? {}
    : {
        field: 'Options',
        reason: `network ${quoted(object.name)} does not declare driver option ${quoted(key)} (Options)`,
      }
}

function decideVolumeCreate(policy: ComposePolicy, guard: GuardOptions, body: PolicyBody): PolicyVerdict {
  const view = decoded(body, volumeCreateShape)
  if (isRefusal(view)) return view
  const object = objectRefusal(policy, view, policy.volumes, 'volume')
  if (isRefusal(object)) return object
  const options = driverRefusal(object, view, { driver: 'Driver', options: 'DriverOpts' }, 'volume')
  if (isRefusal(options)) return options
  if (Object.keys(options).length === 0) return {}
  const refusal = volumeDriverRefusal(view.Driver!, options, 'DriverOpts', guard)
  return refusal
    ? {
        field: refusal.field,
        reason: `volume ${quoted(object.name)} does not declare it, and ${refusal.reason}`,
      }
    : {}
}

const strings = (value: GoStruct[string] | undefined): string[] =>
  Array.isArray(value) ? (value as string[]) : []

async function decideConnect(
  policy: ComposePolicy,
  request: { prefix: string; network: string; action: string; query: string },
  body: PolicyBody,
  read: EngineRead,
): Promise<PolicyVerdict> {
  const view = decoded(body, networkConnectShape)
  if (isRefusal(view)) return view
  const containerName = String(view.Container)
  const network = await projectObjectOrDeclared(
    policy,
    read,
    `${request.prefix}/networks/${encodeURIComponent(request.network)}`,
  )
  if (isRefusal(network)) return network
  const answer = await read(`${request.prefix}/containers/${encodeURIComponent(containerName)}/json`)
  if ('failed' in answer || answer.status !== 200)
    return {
      field: 'Container',
      reason: `container ${quoted(containerName)} could not be read from the engine`,
    }
  const labels = labelsOf((answer.json as { Config?: unknown } | undefined)?.Config)
  const service = serviceOfLabels(policy, labels, `container ${quoted(containerName)}`)
  if (isRefusal(service)) return { ...service, field: 'Container' }
  if (request.action === '/connect' && !service.networks.has(network.name))
    return {
      field: 'Container',
      reason: `service "${service.name}" does not declare network ${quoted(network.name)}`,
    }
  const endpoint = view.EndpointConfig as GoStruct | null
  const refusal = endpointRefusal(
    policy.project,
    service,
    {
      network: network.name,
      aliases: strings(endpoint?.Aliases),
      links: strings(endpoint?.Links),
      addresses: endpointAddresses(endpoint?.IPAMConfig as GoStruct | null | undefined),
      containerId: String((answer.json as { Id?: unknown } | undefined)?.Id ?? ''),
    },
    'EndpointConfig',
  )
  if (refusal) return refusal
  return { target: `${request.prefix}/networks/${network.id}${request.action}${request.query}` }
}

/** A network the project created (its label), or an external one a service joins (by its name). */
async function projectObjectOrDeclared(
  policy: ComposePolicy,
  read: EngineRead,
  target: string,
): Promise<Refusal | { id: string; name: string }> {
  const answer = await read(target)
  if ('failed' in answer || answer.status !== 200)
    return { field: 'network', reason: `the network could not be read from the engine` }
  const json = answer.json as { Id?: string; Name?: string; Labels?: unknown }
  const name = String(json.Name)
  const joined = [...policy.services.values()].some((service) => service.networks.has(name))
  if (ownValue(labelsOf(json), projectLabel) !== policy.project && !joined)
    return { field: 'network', reason: `network ${quoted(name)} is not project "${policy.project}"'s` }
  return { id: String(json.Id), name }
}

function imagePull(policy: ComposePolicy, query: string): PolicyPlan {
  const pairs = queryPairs(query) ?? []
  const values = (name: string) => pairs.filter(([key]) => key === name).map(([, value]) => value)
  if (values('fromSrc').length > 0)
    return { action: 'refuse', refusal: { field: 'fromSrc', reason: 'image imports are refused (fromSrc)' } }
  const [image, ...more] = values('fromImage')
  const tags = values('tag')
  if (image === undefined || more.length > 0 || tags.length > 1)
    return { action: 'refuse', refusal: { field: 'fromImage', reason: 'a pull names one image (fromImage)' } }
  const tag = tags[0] ?? ''
  const reference = tag === '' ? image : tag.includes(':') ? `${image}@${tag}` : `${image}:${tag}`
  if (imageForms(reference).some((form) => policy.images.has(form))) return { action: 'pass' }
  return {
    action: 'refuse',
    refusal: {
      field: 'fromImage',
      reason: `no service of project "${policy.project}" declares image ${quoted(reference)} (fromImage)`,
    },
  }
}

/** How the policy decides a request the rules allowed. */
export function planComposeRequest(
  policy: ComposePolicy,
  guard: GuardOptions,
  request: PolicyRequest,
): PolicyPlan {
  const { method, path, query } = request
  const decide = (run: (body: PolicyBody, read: EngineRead) => Promise<PolicyVerdict>): PolicyPlan => ({
    action: 'decide',
    decide: run,
  })
  const byBody = (judge: (body: PolicyBody) => PolicyVerdict): PolicyPlan => ({
    action: 'decide',
    decide: (body) => Promise.resolve(judge(body)),
    judge,
  })
  if (method === 'POST' && containerCreate.test(path))
    return byBody((body) => {
      const view = decoded(body, composeCreateShape)
      return isRefusal(view) ? view : (createRefusal(policy, view, guard) ?? {})
    })
  if (method === 'POST' && imageCreate.test(path)) return imagePull(policy, query)
  if (method === 'POST' && networkCreate.test(path))
    return byBody((body) => decideNetworkCreate(policy, body))
  if (method === 'POST' && volumeCreate.test(path))
    return byBody((body) => decideVolumeCreate(policy, guard, body))
  const container = containerAction.exec(path)
  const isInspect = container !== null && container[3] === undefined && method !== 'DELETE'
  if (container && !isInspect) {
    const [, prefix = '', name = '', action = ''] = container
    return decide((_body, read) =>
      ownedObjectVerdict(
        policy,
        read,
        { kind: 'container', name, path: `${prefix}/containers/${encodeURIComponent(name)}/json` },
        (id) => `${prefix}/containers/${id}${action}${query}`,
      ),
    )
  }
  const network = networkAction.exec(path)
  if (network && method !== 'GET' && method !== 'HEAD') {
    const [, prefix = '', name = '', action = ''] = network
    if (action !== '')
      return decide((body, read) =>
        decideConnect(policy, { prefix, network: name, action, query }, body, read),
      )
    return decide((_body, read) =>
      ownedObjectVerdict(
        policy,
        read,
        { kind: 'network', name, path: `${prefix}/networks/${encodeURIComponent(name)}` },
        (id) => `${prefix}/networks/${id}${query}`,
      ),
    )
  }
  const volume = method === 'DELETE' ? volumeRemove.exec(path) : null
  if (volume) {
    const [, prefix = '', name = ''] = volume
    return decide((_body, read) =>
      ownedObjectVerdict(policy, read, {
        kind: 'volume',
        name,
        path: `${prefix}/volumes/${encodeURIComponent(name)}`,
      }),
    )
  }
  return { action: 'pass' }
}
