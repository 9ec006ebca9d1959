/**
 * The `%NAME%` variables of the rule language. Every variable CetusGuard defines, with CetusGuard's own
 * definition (SOURCE: hectorm/cetusguard cetusguard/rule.go, `ruleVars`), plus a few vault additions
 * written in terms of them. Definitions are expanded once, at load; a pattern is then expanded in one
 * pass, and a `%NAME%` that is not a variable is an error (CetusGuard would match it literally).
 */
import { UsageError } from '../errors.js'

/** CetusGuard's variables, as CetusGuard defines them (names starting with `_` are its private helpers). */
const cetusGuardVariables: Record<string, string> = {
  DOMAIN: String.raw`(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)`,
  IPV4: String.raw`(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3})`,
  IPV6: String.raw`(?:\[[a-fA-F0-9]{0,4}(?::[a-fA-F0-9]{0,4}){2,7}(?:%[a-zA-Z0-9_]+)?\])`,
  IP: '(?:%IPV4%|%IPV6%)',
  DOMAIN_OR_IP: '(?:%DOMAIN%|%IP%)',
  HOST: '(?:%DOMAIN_OR_IP%(?::[0-9]+)?)',

  IMAGE_ID: '%_OBJECT_ID%',
  IMAGE_COMPONENT: String.raw`(?:[a-zA-Z0-9]+(?:(?:\.|_{1,2}|-+)[a-zA-Z0-9]+)*)`,
  IMAGE_TAG: String.raw`(?:[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127})`,
  IMAGE_DIGEST: String.raw`(?:[a-zA-Z][a-zA-Z0-9]*(?:[_.+-][a-zA-Z][a-zA-Z0-9]*)*:[a-fA-F0-9]{32,})`,
  IMAGE_NAME: '(?:(?:%HOST%/)?%IMAGE_COMPONENT%(?:/%IMAGE_COMPONENT%)*)',
  IMAGE_REFERENCE: '(?:%IMAGE_NAME%(?::%IMAGE_TAG%)?(?:@%IMAGE_DIGEST%)?)',
  IMAGE_ID_OR_REFERENCE: '(?:%IMAGE_ID%|%IMAGE_REFERENCE%)',

  CONTAINER_ID: '%_OBJECT_ID%',
  CONTAINER_NAME: '%_OBJECT_NAME%',
  CONTAINER_ID_OR_NAME: '(?:%CONTAINER_ID%|%CONTAINER_NAME%)',

  VOLUME_ID: '%_OBJECT_ID%',
  VOLUME_NAME: '%_OBJECT_NAME%',
  VOLUME_ID_OR_NAME: '(?:%VOLUME_ID%|%VOLUME_NAME%)',

  NETWORK_ID: '%_OBJECT_ID%',
  NETWORK_NAME: '(?:[^/]+)',
  NETWORK_ID_OR_NAME: '(?:%NETWORK_ID%|%NETWORK_NAME%)',

  PLUGIN_ID: '%_OBJECT_ID%',
  PLUGIN_NAME: '%IMAGE_NAME%',
  PLUGIN_ID_OR_NAME: '(?:%PLUGIN_ID%|%PLUGIN_NAME%)',

  API_PREFIX: '%_API_VERSION%?',
  API_PREFIX_LIBPOD: '%_API_VERSION%/libpod',

  _API_VERSION: String.raw`(?:/v[0-9]+(?:\.[0-9]+)*)`,
  _OBJECT_ID: '(?:[a-fA-F0-9]+)',
  _OBJECT_NAME: '(?:[a-zA-Z0-9][a-zA-Z0-9_.-]+)',
}

/** CetusGuard's `%API_PREFIX_<SECTION>%` sections of the Docker API. */
const dockerSections = [
  'auth',
  'build',
  'commit',
  'configs',
  'containers',
  'debug',
  'distribution',
  'events',
  'exec',
  'grpc',
  'images',
  'info',
  'networks',
  'nodes',
  'plugins',
  'secrets',
  'services',
  'session',
  'swarm',
  'system',
  'tasks',
  'version',
  'volumes',
]

/** CetusGuard's `%API_PREFIX_LIBPOD_<SECTION>%` sections of Podman's libpod API. */
const libpodSections = [
  'build',
  'commit',
  'containers',
  'events',
  'exec',
  'generate',
  'images',
  'info',
  'manifests',
  'networks',
  'play',
  'pods',
  'secrets',
  'system',
  'version',
  'volumes',
]

/** Sections vault also names under its older spelling `%API_LIBPOD_PREFIX_<SECTION>%`. */
const vaultLibpodSections = [...new Set([...libpodSections, ...dockerSections, 'kube'])]

const sectionVariableName = (section: string) => section.toUpperCase()

function sectionVariables(): Record<string, string> {
  const variables: Record<string, string> = { API_PREFIX_PING: '%API_PREFIX%/_ping' }
  variables.API_PREFIX_LIBPOD_PING = '%API_PREFIX_LIBPOD%/_ping'
  for (const section of dockerSections)
    variables[`API_PREFIX_${sectionVariableName(section)}`] = `%API_PREFIX%/${section}`
  for (const section of libpodSections)
    variables[`API_PREFIX_LIBPOD_${sectionVariableName(section)}`] = `%API_PREFIX_LIBPOD%/${section}`
  return variables
}

/** vault's additions (not in CetusGuard): older libpod spellings and ids or names of swarm objects. */
function vaultVariables(): Record<string, string> {
  const idOrName = '(?:%_OBJECT_ID%|%_OBJECT_NAME%)'
  const variables: Record<string, string> = {
    API_LIBPOD_PREFIX: '%API_PREFIX_LIBPOD%',
    EXEC_ID: '%_OBJECT_ID%',
    IMAGE_REGISTRY_HOST: '%HOST%',
    POD_ID_OR_NAME: idOrName,
    SERVICE_ID_OR_NAME: idOrName,
    NODE_ID_OR_NAME: idOrName,
    TASK_ID: '%_OBJECT_ID%',
    SECRET_ID_OR_NAME: idOrName,
    CONFIG_ID_OR_NAME: idOrName,
  }
  for (const section of vaultLibpodSections)
    variables[`API_LIBPOD_PREFIX_${sectionVariableName(section)}`] = `%API_PREFIX_LIBPOD%/${section}`
  variables.API_LIBPOD_PREFIX_PING = '%API_PREFIX_LIBPOD%/_ping'
  return variables
}

/** The names CetusGuard defines (vault's additions excluded), for documentation and tests. */
export const cetusGuardVariableNames: readonly string[] = Object.freeze(
  [...Object.keys(cetusGuardVariables), ...Object.keys(sectionVariables())].sort(),
)

const variablePattern = /%([A-Z_][A-Z0-9_]*)%/g
const maxDefinitionDepth = 16

/** Why a pattern's variables cannot be expanded. */
export class UnknownVariableError extends UsageError {
  override name = 'UnknownVariableError'
  override readonly code: string = 'ERR_PROXY_VARIABLE'
}

function resolveDefinitions(definitions: Record<string, string>): Record<string, string> {
  const resolved: Record<string, string> = {}
  const resolve = (name: string, depth: number): string => {
    if (resolved[name] !== undefined) return resolved[name]
    const definition = definitions[name]
    if (definition === undefined) throw new UnknownVariableError(`unknown variable %${name}%`)
    if (depth > maxDefinitionDepth) throw new UnknownVariableError(`variable %${name}% is part of a cycle`)
    const value = definition.replace(variablePattern, (whole, inner: string) =>
      definitions[inner] === undefined ? whole : resolve(inner, depth + 1),
    )
    resolved[name] = value
    return value
  }
  for (const name of Object.keys(definitions)) resolve(name, 0)
  return resolved
}

/** Every variable the rule language knows, name (without `%`) to its fully expanded RE2 fragment. */
export const ruleVariables: Readonly<Record<string, string>> = Object.freeze(
  resolveDefinitions({ ...cetusGuardVariables, ...sectionVariables(), ...vaultVariables() }),
)

/**
 * Expands every `%NAME%` in a pattern (one pass: variable values are already expanded). Throws
 * UnknownVariableError for an upper-case `%NAME%` that is not a rule variable; other `%` text is left
 * alone. With a custom table, values may refer to each other; cycles are refused.
 */
export function expandVariables(
  pattern: string,
  variables: Readonly<Record<string, string>> = ruleVariables,
): string {
  const table = variables === ruleVariables ? ruleVariables : resolveDefinitions({ ...variables })
  return pattern.replace(variablePattern, (whole, name: string) => {
    const value = table[name]
    if (value === undefined) throw new UnknownVariableError(`unknown variable ${whole}`)
    return value
  })
}
