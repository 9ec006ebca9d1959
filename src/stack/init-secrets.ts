/**
 * Filling an environment with a list of secrets (a stack's, from stack-specs.ts, or the seed's base list,
 * the example stack's preset): generated passwords and keys, inputs from flags or a values file (a
 * given value also replaces a generated one), prompts for what is still missing on a terminal. Everything is validated before the first
 * write, an existing value is kept unless `force`, and no value is ever part of the result.
 */
import { UsageError } from '../errors.js'
import { baseSecrets, checkBaseSecretInput, generateBaseSecret, type BaseSecretSpec } from './base-secrets.js'

/** What `initBaseSecrets` needs of the vault client. */
export interface SecretWriter {
  listSecretNames(environment: string | undefined): Promise<{ name: string }[]>
  putSecret(name: string, value: string, environment: string | undefined): Promise<unknown>
}

export interface InitSecretsOptions {
  environment?: string
  /** Values for input secrets (from flags or a values file), by secret name. */
  inputs: Record<string, string>
  /** Overwrite values that already exist. */
  force: boolean
  /** The secrets to fill (default: the seed's base list). */
  specs?: readonly BaseSecretSpec[]
  /** Asks for a missing input; undefined when no terminal is available. */
  prompt?: (spec: BaseSecretSpec) => Promise<string>
}

export interface InitSecretsResult {
  environment?: string
  created: string[]
  overwritten: string[]
  kept: string[]
  /** Optional inputs that were not given. */
  omitted: string[]
}

/** Writes the base secrets that are missing (all of them with `force`). */
export async function initBaseSecrets(
  writer: SecretWriter,
  options: InitSecretsOptions,
): Promise<InitSecretsResult> {
  const specs = options.specs ?? baseSecrets
  const unknown = Object.keys(options.inputs).filter((name) => !specs.some((spec) => spec.name === name))
  if (unknown.length > 0)
    throw new UsageError(
      `${options.specs ? 'not referenced by the stack' : 'not a base secret'}: ${unknown.join(', ')}`,
    )
  const existing = new Set((await writer.listSecretNames(options.environment)).map((secret) => secret.name))
  const result: InitSecretsResult = {
    environment: options.environment,
    created: [],
    overwritten: [],
    kept: [],
    omitted: [],
  }
  const planned: [string, string][] = []
  const missing: string[] = []
  for (const spec of specs) {
    if (existing.has(spec.name) && !options.force) {
      result.kept.push(spec.name)
      continue
    }
    const value = await valueFor(spec, options)
    if (value === undefined) {
      if (spec.required) missing.push(spec.name)
      else result.omitted.push(spec.name)
      continue
    }
    planned.push([spec.name, value])
  }
  if (missing.length > 0) {
    throw new UsageError(`missing values for ${missing.join(', ')}`, {
      hint: 'pass them as flags or in --values-file, or run on a terminal to be asked',
    })
  }
  for (const [name, value] of planned) {
    await writer.putSecret(name, value, options.environment)
    ;(existing.has(name) ? result.overwritten : result.created).push(name)
  }
  return result
}

async function valueFor(spec: BaseSecretSpec, options: InitSecretsOptions): Promise<string | undefined> {
  const given = options.inputs[spec.name]
  if (given !== undefined) return checkBaseSecretInput(spec, given)
  if (spec.source !== 'input') return generateBaseSecret(spec)
  if (!options.prompt || !spec.required) return undefined
  return checkBaseSecretInput(spec, await options.prompt(spec))
}
