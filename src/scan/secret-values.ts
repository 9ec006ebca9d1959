/**
 * The values `vault scan` looks for: the current value of every secret the identity can read in the
 * environment, and every past version's value (GET .../versions/N, each read audited by the server).
 * A version the server no longer has (deleted) is left out.
 */
import type { VaultApi } from '../client/vault-api.js'
import { NotFoundError } from '../errors.js'
import type { SecretValue } from './patterns.js'

const parallel = 8

/** Every current and past value of the environment's secrets. */
export async function loadSecretValues(
  api: VaultApi,
  environment: string | undefined,
): Promise<{ secrets: number; values: SecretValue[] }> {
  const secrets = await api.listSecrets(environment)
  const values: SecretValue[] = secrets.map((secret) => ({
    name: secret.name,
    version: secret.version,
    current: true,
    value: secret.value,
  }))
  const past: Array<{ name: string; version: number }> = []
  for (const secret of secrets) {
    const versions = await api.versions(secret.name, environment)
    for (const entry of versions)
      if (entry.version !== secret.version && !entry.deleted)
        past.push({ name: secret.name, version: entry.version })
  }
  for (let start = 0; start < past.length; start += parallel) {
    const batch = await Promise.all(
      past.slice(start, start + parallel).map(({ name, version }) =>
        api.secretVersion(name, version, environment).then(
          (found): SecretValue => ({ name, version, current: false, value: found.value }),
          (error: unknown) => {
            if (error instanceof NotFoundError) return undefined
            throw error
          },
        ),
      ),
    )
    for (const entry of batch) if (entry) values.push(entry)
  }
  return { secrets: secrets.length, values }
}
