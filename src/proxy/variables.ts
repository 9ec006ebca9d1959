/**
 * The `%NAME%` variables of the rule language: API-version prefixes for every Docker API section and
 * Podman's libpod API, and object patterns (container, image, volume, network, plugin, ... ids and names).
 * Expansion is repeated until nothing changes; an unknown name is an error.
 */

/** The optional API-version prefix of Docker paths: `/v1`, `/v1.41`, digits and dots only. */
const apiVersionPrefix = String.raw`(?:/v[0-9]+(?:\.[0-9]+)*)?`

/** Podman's libpod API: the version is required, then `/libpod`. */
const libpodPrefix = String.raw`/v[0-9]+(?:\.[0-9]+)*/libpod`

const nameChars = String.raw`[a-zA-Z0-9][a-zA-Z0-9_.-]*`
const hexId = String.raw`[a-f0-9]{1,64}`
const domainComponent = String.raw`(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
const registryHost = String.raw`(?:${domainComponent}(?:\.${domainComponent})*(?::[0-9]+)?|\[[0-9a-fA-F:]+\](?::[0-9]+)?)`
const pathComponent = String.raw`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
const imageTag = String.raw`[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127}`
const imageDigest = String.raw`[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
const imageName = String.raw`(?:${registryHost}/)?${pathComponent}(?:/${pathComponent})*`
const imageReference = String.raw`${imageName}(?::${imageTag})?(?:@${imageDigest})?`
const imageId = String.raw`(?:sha256:)?[a-f0-9]{1,64}`

/** Docker API sections (path segment after the version prefix) with their variable suffix. */
const dockerSections: Record<string, string> = {
  AUTH: '/auth',
  BUILD: '/build',
  COMMIT: '/commit',
  CONFIGS: '/configs',
  CONTAINERS: '/containers',
  DEBUG: '/debug',
  DISTRIBUTION: '/distribution',
  EVENTS: '/events',
  GRPC: '/grpc',
  IMAGES: '/images',
  INFO: '/info',
  NETWORKS: '/networks',
  NODES: '/nodes',
  PING: '/_ping',
  PLUGINS: '/plugins',
  SECRETS: '/secrets',
  SERVICES: '/services',
  SESSION: '/session',
  SWARM: '/swarm',
  SYSTEM: '/system',
  TASKS: '/tasks',
  VERSION: '/version',
  VOLUMES: '/volumes',
}

/** Sections of Podman's libpod API beyond the Docker ones. */
const libpodOnlySections: Record<string, string> = {
  GENERATE: '/generate',
  KUBE: '/kube',
  MANIFESTS: '/manifests',
  PLAY: '/play',
  PODS: '/pods',
}

function sectionVariables(): Record<string, string> {
  const variables: Record<string, string> = {}
  for (const [name, segment] of Object.entries(dockerSections)) {
    variables[`API_PREFIX_${name}`] = `%API_PREFIX%${segment}`
    variables[`API_LIBPOD_PREFIX_${name}`] = `%API_LIBPOD_PREFIX%${segment}`
  }
  for (const [name, segment] of Object.entries(libpodOnlySections)) {
    variables[`API_LIBPOD_PREFIX_${name}`] = `%API_LIBPOD_PREFIX%${segment}`
  }
  variables.API_PREFIX_EXEC = `%API_PREFIX%(?:/containers/%CONTAINER_ID_OR_NAME%/exec|/exec)`
  variables.API_LIBPOD_PREFIX_EXEC = `%API_LIBPOD_PREFIX%(?:/containers/%CONTAINER_ID_OR_NAME%/exec|/exec)`
  return variables
}

/** Every variable the rule language knows, name (without `%`) to regular-expression fragment. */
export const ruleVariables: Readonly<Record<string, string>> = Object.freeze({
  API_PREFIX: apiVersionPrefix,
  API_LIBPOD_PREFIX: libpodPrefix,
  ...sectionVariables(),
  CONTAINER_ID: hexId,
  CONTAINER_NAME: nameChars,
  CONTAINER_ID_OR_NAME: nameChars,
  EXEC_ID: hexId,
  IMAGE_ID: imageId,
  IMAGE_NAME: imageName,
  IMAGE_TAG: imageTag,
  IMAGE_DIGEST: imageDigest,
  IMAGE_REGISTRY_HOST: registryHost,
  IMAGE_REFERENCE: imageReference,
  IMAGE_ID_OR_REFERENCE: `(?:${imageId}|${imageReference})`,
  VOLUME_NAME: nameChars,
  NETWORK_ID: hexId,
  NETWORK_NAME: nameChars,
  NETWORK_ID_OR_NAME: nameChars,
  PLUGIN_ID: hexId,
  PLUGIN_NAME: imageReference,
  PLUGIN_ID_OR_NAME: `(?:${hexId}|${imageReference})`,
  POD_ID_OR_NAME: nameChars,
  SERVICE_ID_OR_NAME: nameChars,
  NODE_ID_OR_NAME: nameChars,
  TASK_ID: nameChars,
  SECRET_ID_OR_NAME: nameChars,
  CONFIG_ID_OR_NAME: nameChars,
})

const variablePattern = /%([A-Z_][A-Z0-9_]*)%/g
const maxExpansionRounds = 16

/** Why a pattern's variables cannot be expanded. */
export class UnknownVariableError extends Error {
  override name = 'UnknownVariableError'
}

/**
 * Expands every `%NAME%` in a pattern, repeatedly, until none is left. Throws UnknownVariableError
 * for a name that is not a rule variable (or a cycle of user-supplied variables).
 */
export function expandVariables(
  pattern: string,
  variables: Readonly<Record<string, string>> = ruleVariables,
): string {
  let current = pattern
  for (let round = 0; round < maxExpansionRounds; round++) {
    const next = current.replace(variablePattern, (whole, name: string) => {
      const value = variables[name]
      if (value === undefined) throw new UnknownVariableError(`unknown variable ${whole}`)
      return value
    })
    if (next === current) return current
    current = next
  }
  throw new UnknownVariableError('variables still present after 16 rounds of expansion (a cycle?)')
}
