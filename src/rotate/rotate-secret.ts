/**
 * `vault rotate NAME`: read the current version and plan the restart (so a broken stack fails before
 * anything changes), make a new value, run the hook (which must succeed before the vault changes),
 * PATCH with If-Match on the version read, then recreate exactly the compose services that reference
 * NAME and check that they came back (healthy or running).
 */
import type { VaultApi } from '../client/vault-api.js'
import { VaultError } from '../errors.js'
import { buildChildEnvironment } from '../process/child-env.js'
import { newValueFor } from './new-value.js'
import { executeRestart, planRestart, type RestartPlan, type ServiceReport } from './restart.js'

export interface RotateOptions {
  name: string
  environment?: string
  length?: number
  /** A value given on stdin instead of a generated one. */
  value?: string
  hook?: string
  restart: boolean
  /** The stack directory: where the compose files are. */
  stackDir: string
  composeFiles?: string[]
  /** Compose profiles whose services count too (`--profile`). */
  profiles?: string[]
  /** Seconds to wait for the recreated services. */
  waitSeconds: number
  note: (line: string) => void
}

export interface RotateResult {
  name: string
  environment?: string
  previousVersion: number
  version: number
  hook: 'none' | 'succeeded'
  /** Services that reference the secret, recreated unless --no-restart. */
  services: ServiceReport[]
  restarted: boolean
  /** True when every recreated service is running (and healthy when it has a health check). */
  healthy: boolean
}

/** Rotates one secret; a failing hook or a broken stack throws before the vault or any container changes. */
export async function rotateSecret(api: VaultApi, options: RotateOptions): Promise<RotateResult> {
  const secrets = await loadSecrets(api, options.environment)
  const current = await api.getSecret(options.name, options.environment)
  const plan: RestartPlan | undefined = options.restart
    ? await planRestart({
        name: options.name,
        secrets,
        stackDir: options.stackDir,
        composeFiles: options.composeFiles,
        profiles: options.profiles,
      })
    : undefined
  const value = options.value ?? newValueFor(options.name, options.length)
  const hook = options.hook ? await runRotationHook(options, value, current.version) : 'none'
  const written = await api
    .patchSecret(options.name, value, options.environment, { ifVersion: current.version })
    .catch((error: unknown) => {
      if (hook === 'succeeded') {
        options.note(
          'Warning: the hook succeeded but the vault refused the new value; run the rotation again',
        )
      }
      throw error
    })
  options.note(`${options.name}: version ${current.version} -> ${written.version}`)
  const result: RotateResult = {
    name: options.name,
    environment: options.environment,
    previousVersion: current.version,
    version: written.version,
    hook,
    services: [],
    restarted: false,
    healthy: true,
  }
  if (!plan || plan.services.length === 0) {
    if (plan) options.note(`no compose service references ${options.name}: nothing to recreate`)
    return result
  }
  options.note(
    `recreating ${plan.services.join(', ')} with ${plan.client?.version === 'v2' ? 'docker compose' : 'docker-compose'}`,
  )
  const restart = await executeRestart(plan, { ...secrets, [options.name]: value }, options.waitSeconds)
  return { ...result, services: restart.services, restarted: true, healthy: restart.healthy }
}

async function loadSecrets(api: VaultApi, environment: string | undefined): Promise<Record<string, string>> {
  const secrets = await api.listSecrets(environment)
  return Object.fromEntries(secrets.map((secret) => [secret.name, secret.value]))
}

async function runRotationHook(options: RotateOptions, value: string, version: number): Promise<'succeeded'> {
  const { runHook } = await import('../process/hook.js')
  const env = buildChildEnvironment(process.env, {})
  const code = await runHook(options.hook!, value, {
    name: options.name,
    environment: options.environment,
    env,
    cwd: options.stackDir,
  })
  if (code !== 0) {
    throw new VaultError(
      `the hook exited with ${code}: nothing was changed (the vault still holds version ${version})`,
      {
        hint: 'fix the hook; it gets the new value on stdin and must exit 0',
      },
    )
  }
  return 'succeeded'
}
