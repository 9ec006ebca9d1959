/**
 * Filling an environment with a list of secrets (a stack's, from stack-specs.ts, or the seed's base list,
 * the example stack's preset): generated passwords and keys, inputs from flags or a values file (a
 * given value also replaces a generated one), prompts for what is still missing on a terminal. Everything is validated before the first
 * write, an existing value is kept unless `force`, and no value is ever part of the result.
 */
import { UsageError } from '../errors.js'
import { baseSecrets, checkBaseSecretInput, generateBaseSecret, type BaseSecretSpec } from './base-secrets.js'
import { isPublishedPlaceholder } from './value-kinds.js'

/** What `initBaseSecrets` needs of the vault client. */
export interface SecretWriter {
  listSecrets(environment: string | undefined): Promise<{ name: string; value: string; template?: boolean }[]>
  putSecret(
    name: string,
    value: string,
    environment: string | undefined,
    options?: { template?: boolean },
  ): Promise<unknown>
}

export interface InitSecretsOptions {
  environment?: string
  /** Values for input secrets (from flags or a values file), by secret name. */
  inputs: Record<string, string>
  /** Overwrite values that already exist. */
  force: boolean
  /** Plan only: nothing is asked, generated or written. */
  dryRun?: boolean
  /** The secrets to fill (default: the seed's base list). */
  specs?: readonly BaseSecretSpec[]
  /** Referenced names the plan leaves out, with why (from stack-specs.ts). */
  skipped?: readonly { name: string; reason: string }[]
  /** Asks for a missing input; undefined when no terminal is available. */
  prompt?: (spec: BaseSecretSpec) => Promise<string>
}

/** What init does with one variable: generate, template, input (given or asked), keep or skip. */
export type InitAction = 'generate' | 'template' | 'input' | 'keep' | 'skip'

/** One line of the plan (never a value; a template names secrets, not their values). */
export interface InitPlanEntry {
  name: string
  action: InitAction
  reason: string
  /** For templates: the text stored, `${OTHER}` where the other secret goes. */
  template?: string
}

export interface InitSecretsResult {
  environment?: string
  dryRun: boolean
  /** One entry per variable, in the stack's order. */
  plan: InitPlanEntry[]
  created: string[]
  overwritten: string[]
  kept: string[]
  /** Optional inputs that were not given. */
  omitted: string[]
}

/** Writes the base secrets that are missing (all of them with `force`); with `dryRun` only plans. */
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
  const existing = new Map(
    (await writer.listSecrets(options.environment)).map((secret) => [secret.name, secret]),
  )
  const result: InitSecretsResult = {
    environment: options.environment,
    dryRun: options.dryRun === true,
    plan: [],
    created: [],
    overwritten: [],
    kept: [],
    omitted: [],
  }
  const planned: { spec: BaseSecretSpec; value: string }[] = []
  const missing: string[] = []
  for (const spec of specs) {
    const held = existing.get(spec.name)
    const replaces = held !== undefined && holdsPublishedValue(spec, held)
    if (held !== undefined && !options.force && !replaces) {
      result.kept.push(spec.name)
      result.plan.push({
        name: spec.name,
        action: 'keep',
        reason: 'the vault holds a value (--force replaces it)',
      })
      continue
    }
    const entry = planEntry(spec, options, replaces)
    if (options.dryRun) {
      result.plan.push(entry)
      continue
    }
    const value = await valueFor(spec, options)
    if (value === undefined) {
      if (spec.required) missing.push(spec.name)
      else result.omitted.push(spec.name)
      result.plan.push({ ...entry, action: 'skip', reason: 'optional input, not given' })
      continue
    }
    result.plan.push(entry)
    planned.push({ spec, value })
  }
  for (const skipped of options.skipped ?? []) result.plan.push({ ...skipped, action: 'skip' })
  if (missing.length > 0) {
    throw new UsageError(`missing values for ${missing.join(', ')}`, {
      hint: 'pass them as flags or in --values-file, or run on a terminal to be asked',
    })
  }
  const isTemplate = (entry: (typeof planned)[number]) =>
    entry.spec.source === 'template' && options.inputs[entry.spec.name] === undefined
  planned.sort((a, b) => Number(isTemplate(a)) - Number(isTemplate(b)))
  for (const entry of planned) {
    const { name } = entry.spec
    await writer.putSecret(
      name,
      entry.value,
      options.environment,
      isTemplate(entry) ? { template: true } : {},
    )
    ;(existing.has(name) ? result.overwritten : result.created).push(name)
  }
  return result
}

/** A held value the stack published (its literal default, or a placeholder such as CHANGEME) is replaced. */
function holdsPublishedValue(spec: BaseSecretSpec, held: { value: string; template?: boolean }): boolean {
  if (spec.source === 'input' || held.template) return false
  return held.value === spec.published || (spec.source !== 'template' && isPublishedPlaceholder(held.value))
}

function planEntry(spec: BaseSecretSpec, options: InitSecretsOptions, replaces: boolean): InitPlanEntry {
  const { name } = spec
  const given = options.inputs[name] !== undefined
  const because = (reason: string) => (replaces ? `the vault holds the published value; ${reason}` : reason)
  if (given) return { name, action: 'input', reason: because('given (--set, --values-file or a flag)') }
  if (spec.source === 'template')
    return { name, action: 'template', reason: because(spec.reason ?? 'a template'), template: spec.template }
  if (spec.source === 'input')
    return {
      name,
      action: 'input',
      reason: spec.required ? 'required, no default: --set, --values-file or a prompt' : 'optional input',
    }
  return { name, action: 'generate', reason: because(spec.reason ?? spec.summary) }
}

async function valueFor(spec: BaseSecretSpec, options: InitSecretsOptions): Promise<string | undefined> {
  const given = options.inputs[spec.name]
  if (given !== undefined) return checkBaseSecretInput(spec, given)
  if (spec.source !== 'input') return generateBaseSecret(spec)
  if (!options.prompt || !spec.required) return undefined
  return checkBaseSecretInput(spec, await options.prompt(spec))
}
