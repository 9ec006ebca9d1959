/**
 * Ready-made rule texts: the built-in rules (ping, version, info), the seed's default rule list and its
 * tiers as named presets, and the exposure check that warns when a rule set lets clients read a
 * container's filesystem, attach to its stdin, read its environment or create containers.
 */
import { decide, type Rule } from './rules.js'

/** Rules placed before every configured rule unless turned off: connectivity checks only (CetusGuard's). */
export const builtinRulesText = `# built-in: connectivity and version negotiation (Docker and Podman's libpod API)
GET,HEAD %API_PREFIX_PING%
GET,HEAD %API_PREFIX_LIBPOD_PING%
GET %API_PREFIX_VERSION%
GET %API_PREFIX_LIBPOD_VERSION%
GET %API_PREFIX_INFO%
GET %API_PREFIX_LIBPOD_INFO%
`

const defaultRules = `# the seed's default rule list (NOT read-only: POST on containers and exec)
GET %API_PREFIX_EVENTS%
GET,HEAD,POST %API_PREFIX_EXEC%(/.*)?
GET,HEAD,POST %API_PREFIX_CONTAINERS%(/.*)?
GET,HEAD %API_PREFIX_IMAGES%(/.*)?
GET,HEAD %API_PREFIX_VOLUMES%(/.*)?
GET,HEAD %API_PREFIX_NETWORKS%(/.*)?
GET,HEAD %API_PREFIX_BUILD%(/.*)?
`

/**
 * What the read-only presets allow on containers: list, inspect, top, logs, changes, stats. Not export,
 * archive, attach or exec: those read files, environments or a shell and must be named by a rule.
 */
const containerReads = `GET,HEAD %API_PREFIX_CONTAINERS%/json
GET,HEAD %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/(?:json|top|logs|changes|stats)
`

/**
 * Image reads without export (`/images/get`, `/images/{name}/get`: whole filesystems, and the
 * environment of an image committed from a container, which cannot be masked inside a tarball),
 * history (each layer's `CreatedBy` shows `ENV` values and build arguments, `|1 TOKEN=value ...`) or
 * search (`/images/search?term=host:port/x` makes the engine connect to any address, and its errors
 * tell open ports from closed ones).
 */
const imageReads = `GET,HEAD %API_PREFIX_IMAGES%/json
GET,HEAD %API_PREFIX_IMAGES%/.+/json
`

/** Named rule sets: the seed's default list and its tiers. */
export const presets = {
  default: defaultRules,
  'read-only': `# read-only: containers (no export, archive, attach or exec) and images (no export)
${containerReads}${imageReads}`,
  monitoring: `# monitoring: read-only plus events, networks and volumes (no exec)
GET %API_PREFIX_EVENTS%
${containerReads}${imageReads}GET,HEAD %API_PREFIX_NETWORKS%(/.*)?
GET,HEAD %API_PREFIX_VOLUMES%(/.*)?
`,
  management: `# management: start, stop, exec and create containers; read images
GET %API_PREFIX_EVENTS%
GET,HEAD,POST %API_PREFIX_EXEC%(/.*)?
GET,HEAD,POST %API_PREFIX_CONTAINERS%(/.*)?
GET,HEAD %API_PREFIX_IMAGES%(/.*)?
`,
  'true-read-only': `# true read-only: GET and HEAD only (events GET only); containers as in read-only, no exec
GET %API_PREFIX_EVENTS%
${containerReads}${imageReads}GET,HEAD %API_PREFIX_VOLUMES%(/.*)?
GET,HEAD %API_PREFIX_NETWORKS%(/.*)?
GET,HEAD %API_PREFIX_BUILD%(/.*)?
`,
  'fine-grained': `# fine-grained: list, inspect and logs of containers, list images, start/stop/restart
GET %API_PREFIX_EVENTS%
GET,HEAD %API_PREFIX_CONTAINERS%/json
GET,HEAD %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/json
GET %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/logs
GET,HEAD %API_PREFIX_IMAGES%/json
POST %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/(?:start|stop|restart)
`,
} as const

export type PresetName = keyof typeof presets

/** The names of the presets, for flag options and help. */
export const presetNames = Object.keys(presets) as PresetName[]

/** Presets that mask container environment in answers (inspect-redact.ts) unless turned off. */
export const envRedactingPresets: ReadonlySet<string> = new Set(['read-only', 'true-read-only', 'monitoring'])

/** Requests that read more than their "read-only" look suggests, with what they expose. */
const exposureProbes: { method: string; path: string; exposure: string }[] = [
  { method: 'GET', path: '/containers/probe/export', exposure: 'container export (the whole filesystem)' },
  {
    method: 'GET',
    path: '/containers/probe/archive',
    exposure: 'container archive (any file of a container)',
  },
  {
    method: 'GET',
    path: '/containers/probe/attach/ws',
    exposure: 'attach over a websocket (stdin of a container)',
  },
  { method: 'POST', path: '/containers/probe/attach', exposure: 'attach (stdin and stdout of a container)' },
  {
    method: 'GET',
    path: '/images/probe/get',
    exposure: 'image export (whole images; one committed from a container holds its environment)',
  },
  {
    method: 'GET',
    path: '/containers/probe/json',
    exposure: "container inspect (the container's environment, secrets included)",
  },
  {
    method: 'POST',
    path: '/containers/create',
    exposure: 'container create (privileged containers, host mounts: root on the host)',
  },
  { method: 'POST', path: '/containers/probe/exec', exposure: 'exec (any command in any container)' },
  { method: 'POST', path: '/exec/probe/start', exposure: 'exec start (runs a command created earlier)' },
]

const inspectPath = '/containers/probe/json'

/**
 * One line per risky request the rules allow, e.g. `GET /containers/{id}/export is allowed: ...`.
 * Container inspect is not reported when `redactEnv` masks the environment it would show.
 */
export function exposureWarnings(rules: readonly Rule[], redactEnv = false): string[] {
  return exposureProbes
    .filter((probe) => !(redactEnv && probe.path === inspectPath))
    .filter((probe) => decide(rules, probe.method, probe.path).allowed)
    .map((probe) => `${probe.method} ${probe.path.replace('probe', '{id}')} is allowed: ${probe.exposure}`)
}
