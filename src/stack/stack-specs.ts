/**
 * What `vault secrets init` fills for a stack it reads: every variable the compose files reference,
 * generated when its name marks it as a secret (`*_PASSWORD`, `*_PASS`, `*_SECRET`, `*_KEY`, `*_TOKEN`,
 * `*_SALT`), asked for otherwise unless it has a default or the project env file sets it. A name the
 * seed's base list knows (the example stack's preset) keeps that entry's shape and validation.
 */
import type { ComposeProject } from '../compose/index.js'
import { valueShapeFor } from '../crypto/new-value.js'
import { baseSecrets, type BaseSecretSpec } from './base-secrets.js'

/** True when a name marks a value as a secret to generate. */
export function isSecretName(name: string): boolean {
  return /_(PASSWORD|PASS|SECRET|KEY|TOKEN|SALT)$/.test(name) || /^(PASSWORD|SECRET|TOKEN)$/.test(name)
}

export interface StackSpecs {
  specs: BaseSecretSpec[]
  /** Referenced names left out, with why (a default, the project env file, a vault setting). */
  skipped: { name: string; reason: string }[]
}

/** The specs of every variable the project references. */
export function specsForStack(project: ComposeProject, listVariables: ListVariables): StackSpecs {
  const specs: BaseSecretSpec[] = []
  const skipped: { name: string; reason: string }[] = []
  for (const variable of listVariables(project.references)) {
    const { name } = variable
    const preset = baseSecrets.find((spec) => spec.name === name)
    if (name.startsWith('VAULT_') || name.startsWith('COMPOSE_')) {
      skipped.push({ name, reason: 'a vault or compose setting' })
    } else if (project.origins[name] === 'env-file') {
      skipped.push({ name, reason: 'set in the project env file (vault secrets import moves it)' })
    } else if (isSecretName(name) && preset?.source !== 'input') {
      const shape = valueShapeFor(name)
      const summary = shape === 'hex32' ? '32-byte random value, hex' : 'generated password'
      specs.push(preset ?? { name, summary, source: shape, required: true })
    } else if (variable.defaultValue !== undefined) {
      skipped.push({ name, reason: 'has a default' })
    } else {
      specs.push(preset ?? { name, summary: 'referenced by the stack', source: 'input', required: true })
    }
  }
  return { specs, skipped }
}

type ListVariables = (sites: ComposeProject['references']) => { name: string; defaultValue?: string }[]
