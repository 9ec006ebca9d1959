/**
 * `vault secrets rollback NAME VERSION --rotator ...`: a database password rolled back in the vault
 * and inside the database, so they never disagree. The rotator changes the database's password from the
 * current value to the earlier version's (a fresh login with it checked), then the vault writes the
 * rollback conditionally on the version read; if the vault refuses, the database gets the current
 * value back.
 */
import type { SecretMetadata, VaultApi } from '../../client/vault-api.js'
import { UsageError } from '../../errors.js'
import type { DatabaseRotator } from './rotator.js'

export interface DatabaseRollback {
  name: string
  version: number
  environment: string | undefined
  rotator: DatabaseRotator
  note: (line: string) => void
}

/** Rolls `name` back to `version` inside the database first, then in the vault. */
export async function rollbackWithRotator(api: VaultApi, options: DatabaseRollback): Promise<SecretMetadata> {
  const { name, version, environment, rotator } = options
  const current = await api.getSecret(name, environment)
  const earlier = await api.secretVersion(name, version, environment)
  const template = [current, earlier].find((held) => held.template)
  if (template) {
    // a template's text (`postgres://app:${DB_PASSWORD}@db/app`) is no password: the rotator would set it
    throw new UsageError(
      `${name} version ${template.version} is a template: --rotator sets a database password`,
      {
        hint: `roll back the secret the template names with --rotator, or this one without --rotator`,
      },
    )
  }
  if (current.value === earlier.value)
    return api.rollback(name, version, environment, { ifVersion: current.version })
  await rotator.apply(current.value, earlier.value)
  options.note(`${rotator.name}: the database now holds the value of version ${version}`)
  try {
    return await api.rollback(name, version, environment, { ifVersion: current.version })
  } catch (error) {
    await rotator.revert(current.value, earlier.value).then(
      () =>
        options.note(
          `${rotator.name}: the vault refused the rollback; the database holds version ${current.version}'s value again`,
        ),
      (revertError: unknown) =>
        options.note(
          `Warning: the vault refused the rollback and ${rotator.name} could not put version ${current.version}'s value back inside the database: ${(revertError as Error).message}`,
        ),
    )
    throw error
  }
}
