/**
 * A built-in rotator for a command that works on a stack's secret (`vault secrets rollback --rotator`):
 * the rotator the flags choose, whose `--rotator-service` client runs through `compose exec -T` in the
 * stack with the environment's values (templates resolved) in compose's environment.
 */
import type { VaultApi } from '../../client/vault-api.js'
import { createRotator, type RotatorChoice } from './index.js'
import type { DatabaseRotator } from './rotator.js'

export interface StackRotatorOptions {
  environment: string | undefined
  stackDir: string
  composeFiles?: string[]
  allowEnv?: readonly string[]
}

/** The rotator `choice` names, reaching a service of the stack in `options.stackDir` when it needs one. */
export function stackRotator(
  choice: RotatorChoice,
  api: VaultApi,
  options: StackRotatorOptions,
): Promise<DatabaseRotator> {
  return createRotator(choice, async () => {
    const { serviceExec } = await import('../service-exec.js')
    const { resolveTemplates } = await import('../../client/resolve-templates.js')
    const secrets = resolveTemplates(await api.listSecrets(options.environment))
    return serviceExec({
      stackDir: options.stackDir,
      composeFiles: options.composeFiles,
      allowEnv: options.allowEnv,
      secrets: Object.fromEntries(secrets.map((secret) => [secret.name, secret.value])),
    })
  })
}
