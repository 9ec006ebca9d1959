/**
 * The vault-backed SecretLayer that `vault render --env` and `vault run` use: one list call per
 * environment, values by name (templates resolved), and which templates name a secret (render
 * --who-uses; unknown when the values came from the offline copy, which holds resolved values).
 */
import { dependentTemplates, type StoredSecret } from '../client/resolve-templates.js'
import type { SecretLayer } from '../compose/secret-layer.js'
import { fetchSecrets, sessionOptionsFor, type FallbackPolicy } from './fallback-request.js'
import type { ConnectionSettings } from '../client/settings.js'
import { createSession } from '../client/session.js'
import { VaultApi } from '../client/vault-api.js'

/**
 * A SecretLayer that reads the environment's secrets from the vault; an empty environment lets the
 * server pick the only one the identity reaches. With `fallback`, through the offline copy (--fallback).
 */
export function createSecretLayer(settings: ConnectionSettings, fallback?: FallbackPolicy): SecretLayer {
  const api = new VaultApi(createSession(settings, process.env, sessionOptionsFor(fallback)))
  const stored = new Map<string, StoredSecret[]>()
  const plain = new Map<string, ReadonlySet<string>>()
  return {
    async load(environment) {
      const target = { domain: settings.domain, projectId: settings.projectId, environment }
      const secrets = await fetchSecrets(fallback, target, async () => {
        const listed = await api.listSecrets(environment || undefined)
        stored.set(environment, listed)
        return listed
      })
      plain.set(environment, new Set(secrets.filter((secret) => secret.plain).map((secret) => secret.name)))
      return Object.fromEntries(secrets.map((secret) => [secret.name, secret.value]))
    },
    plainNames: (environment) => plain.get(environment) ?? new Set(),
    templatesNaming(environment, name) {
      return dependentTemplates(stored.get(environment) ?? [], name)
    },
  }
}
