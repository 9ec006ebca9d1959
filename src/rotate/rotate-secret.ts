/**
 * `vault rotate NAME`: read the current version and plan the restart (so a broken stack fails before
 * anything changes; other secrets holding a copy of the value refuse it: copies.ts), make a new value, change it inside the database (a built-in rotator, which checks a
 * fresh login) or run the hook, both before the vault changes, PATCH with If-Match on the version read,
 * then recreate exactly the compose services that use NAME and wait until they are ready. When they are
 * not, roll back by default: the vault gets the previous value back (as a new version; when it refuses,
 * the database keeps the new one, so the two still agree), then the database its old password, and the
 * services are recreated again. The result always says what the vault holds.
 */
import { dependentTemplates, resolvedValues } from '../client/resolve-templates.js'
import type { VaultApi } from '../client/vault-api.js'
import { buildChildEnvironment } from '../process/child-env.js'
import { HookFailedError, runHook } from '../process/hook.js'
import type { DatabaseRotator } from './rotators/rotator.js'
import { newValueFor } from '../crypto/new-value.js'
import { UsageError } from '../errors.js'
import { refuseCopies } from './copies.js'
import { executeRestart, planRestart, type RestartPlan, type ServiceReport } from './restart.js'

export interface RotateOptions {
  name: string
  environment?: string
  length?: number
  /** A value given on stdin instead of a generated one. */
  value?: string
  hook?: string
  /** A built-in rotator that changes the password inside the database. */
  rotator?: DatabaseRotator
  restart: boolean
  /** The stack directory: where the compose files are. */
  stackDir: string
  composeFiles?: string[]
  /** Compose profiles whose services count too (`--profile`). */
  profiles?: string[]
  /** Secrets whose names control the host that may still reach compose (`--allow-env NAME`). */
  allowEnv?: readonly string[]
  /** Seconds to wait for the recreated services. */
  waitSeconds: number
  /** Seconds a service without a health check must run without a restart. */
  stableSeconds: number
  /** Roll back when the services do not come back (default true). */
  rollback: boolean
  /** Rotate even when other secrets hold a copy of the value (they keep the old one). */
  force?: boolean
  note: (line: string) => void
}

export type RotateOutcome = 'rotated' | 'rolled-back' | 'unhealthy'

export interface RotateResult {
  name: string
  environment?: string
  previousVersion: number
  version: number
  /** The version the vault holds now, and whether its value is the new one or the previous one. */
  vaultVersion: number
  vaultHolds: 'new' | 'previous'
  outcome: RotateOutcome
  hook: 'none' | 'succeeded'
  rotator?: string
  /** Services that use the secret, recreated unless --no-restart. */
  services: ServiceReport[]
  restarted: boolean
  /** True when every recreated service is ready. */
  healthy: boolean
  /** Compose's whole message when recreating failed. */
  error?: string
  /** After a rollback: the services recreated again with the previous value. */
  rollback?: { services: ServiceReport[]; healthy: boolean; error?: string }
}

/** Rotates one secret; a failing hook or rotator, or a broken stack, throws before anything changes. */
export async function rotateSecret(api: VaultApi, options: RotateOptions): Promise<RotateResult> {
  const stored = await api.listSecrets(options.environment)
  const secrets = resolvedValues(stored)
  const current = await api.getSecret(options.name, options.environment)
  if (stored.some((secret) => secret.name === options.name && secret.template)) {
    throw new UsageError(`${options.name} is a template: rotate the secrets it names instead`, {
      hint: `vault secrets list --env ${options.environment ?? '<env>'} shows which secrets are templates`,
    })
  }
  const templates = dependentTemplates(stored, options.name)
  refuseCopies({
    name: options.name,
    values: secrets,
    templates,
    force: options.force === true,
    note: options.note,
  })
  const plan: RestartPlan | undefined = options.restart
    ? await planRestart({
        name: options.name,
        through: templates,
        secrets,
        stackDir: options.stackDir,
        composeFiles: options.composeFiles,
        profiles: options.profiles,
        allowEnv: options.allowEnv,
      })
    : undefined
  if (plan && templates.length > 0)
    options.note(
      `${options.name} is named by the template${templates.length === 1 ? '' : 's'} ${templates.join(', ')}: their services are recreated too (vault render --who-uses ${options.name}${options.environment ? ` --env ${options.environment}` : ''} lists them)`,
    )
  for (const service of plan?.literalUsers ?? [])
    options.note(
      `Warning: ${service} receives ${options.name} as a literal value (an env_file line), not from the vault: it keeps the old value; move it with vault secrets import FILE --only ${options.name} --move`,
    )
  const value = options.value ?? newValueFor(options.name, options.length)
  const revertDatabase = async () => {
    if (!options.rotator) return
    await options.rotator.revert(current.value, value).then(
      () => options.note(`${options.rotator!.name}: the old password is back inside the database`),
      (error: unknown) =>
        options.note(
          `Warning: ${options.rotator!.name} could not restore the old password inside the database: ${(error as Error).message}`,
        ),
    )
  }
  if (options.rotator) await options.rotator.apply(current.value, value)
  const hook = options.hook
    ? await runRotationHook(options, value, current.version).catch(async (error: unknown) => {
        await revertDatabase()
        throw error
      })
    : 'none'
  const written = await api
    .patchSecret(options.name, value, options.environment, { ifVersion: current.version })
    .catch(async (error: unknown) => {
      await revertDatabase()
      if (hook === 'succeeded')
        options.note(
          'Warning: the hook succeeded but the vault refused the new value; run the rotation again',
        )
      throw error
    })
  options.note(`${options.name}: version ${current.version} -> ${written.version}`)
  const result: RotateResult = {
    name: options.name,
    environment: options.environment,
    previousVersion: current.version,
    version: written.version,
    vaultVersion: written.version,
    vaultHolds: 'new',
    outcome: 'rotated',
    hook,
    rotator: options.rotator?.name,
    services: [],
    restarted: false,
    healthy: true,
  }
  if (!plan || plan.services.length === 0) {
    if (plan) options.note(`no compose service uses ${options.name}: nothing to recreate`)
    return result
  }
  options.note(
    `recreating ${plan.services.join(', ')} with ${plan.client?.version === 'v2' ? 'docker compose' : 'docker-compose'}`,
  )
  const restartOptions = { waitSeconds: options.waitSeconds, stableSeconds: options.stableSeconds }
  const restart = await executeRestart(
    plan,
    resolvedValues(stored, { [options.name]: value }),
    restartOptions,
  )
  Object.assign(result, {
    services: restart.services,
    restarted: true,
    healthy: restart.healthy,
    error: restart.error,
  })
  if (restart.healthy) return result
  if (!options.rollback) return { ...result, outcome: 'unhealthy' }
  options.note(
    `${options.name}: the services are not ready; rolling back to the value of version ${current.version}`,
  )
  const restored = await api
    .rollback(options.name, current.version, options.environment)
    .catch((error: unknown) => {
      options.note(
        `Warning: the vault refused the rollback: it still holds version ${written.version} (the new value, which the database also holds); run vault secrets rollback ${options.name} ${current.version}`,
      )
      throw error
    })
  await revertDatabase()
  if (hook === 'succeeded')
    options.note('Warning: what the hook changed with the new value is not undone; undo it by hand')
  const again = await executeRestart(plan, secrets, restartOptions)
  return {
    ...result,
    outcome: 'rolled-back',
    vaultVersion: restored.version,
    vaultHolds: 'previous',
    rollback: again,
  }
}

async function runRotationHook(options: RotateOptions, value: string, version: number): Promise<'succeeded'> {
  const env = buildChildEnvironment(process.env, {})
  const code = await runHook(options.hook!, value, {
    name: options.name,
    environment: options.environment,
    env,
    cwd: options.stackDir,
  })
  if (code !== 0) throw new HookFailedError(code, version)
  return 'succeeded'
}
