/**
 * The vault-backed SecretLayer that `vault render --env` and `vault run` use: one list call per
 * environment, values by name.
 */
import type { ConnectionSettings } from './settings.js'
import { createSession } from './session.js'
import { VaultApi } from './vault-api.js'

/** A source of secret values for one environment. */
export interface VaultSecretLayer {
  load(environment: string): Promise<Record<string, string>>
}

/** A SecretLayer that reads the environment's secrets from the vault. */
export function createSecretLayer(settings: ConnectionSettings): VaultSecretLayer {
  const api = new VaultApi(createSession(settings))
  return {
    async load(environment) {
      const secrets = await api.listSecrets(environment || undefined)
      return Object.fromEntries(secrets.map((secret) => [secret.name, secret.value]))
    },
  }
}
