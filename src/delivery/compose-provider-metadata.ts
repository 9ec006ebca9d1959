/**
 * What `vault compose metadata` prints: the provider's description and the parameters of its `up`,
 * `down` and `stop` commands, in the shape of docker/compose's ProviderMetadata
 * (pkg/compose/plugins.go). Compose (2.37 and later) passes a service's `provider.options` only
 * when they are declared here, and refuses to start a stack that lacks a required one. `down` and
 * `stop` declare none, so compose passes them no option.
 */

/** One parameter, as compose's ParameterMetadata reads it (`default` is a string there). */
export interface ProviderParameter {
  name: string
  description: string
  required: boolean
  type: string
  default?: string
}

export interface ProviderMetadata {
  description: string
  up: { parameters: ProviderParameter[] }
  down: { parameters: ProviderParameter[] }
  stop: { parameters: ProviderParameter[] }
}

/** The `provider.options` that `vault compose up` reads; each is a flag of the command of the same name. */
export const upParameters: readonly ProviderParameter[] = [
  {
    name: 'env',
    description: "environment slug (default: VAULT_ENV, else the identity's only environment)",
    required: false,
    type: 'string',
  },
  {
    name: 'secrets',
    description: 'names of the secrets the dependent services receive (a list), or * for every one',
    required: true,
    type: 'stringArray',
  },
  {
    name: 'raw',
    description:
      'true: exact names (rawsetenv, compose 5.2+); false: names prefixed with the service (setenv)',
    required: false,
    type: 'bool',
    default: 'true',
  },
  {
    name: 'allow-env',
    description: 'names that control a process (PATH, LD_*, DOCKER_*, ...) that may still be set (a list)',
    required: false,
    type: 'stringArray',
  },
]

/** The metadata document `vault compose metadata` prints. */
export function providerMetadata(): ProviderMetadata {
  return {
    description: 'Secrets from a vault for the services that depend on this one, in their environment',
    up: { parameters: upParameters.map((parameter) => ({ ...parameter })) },
    down: { parameters: [] },
    stop: { parameters: [] },
  }
}
