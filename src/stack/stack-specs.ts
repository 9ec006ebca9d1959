/**
 * What `vault secrets init` fills for a stack it reads, and why. A secret-named variable (`*_PASSWORD`,
 * `*_PASS`, `*_SECRET`, `*_KEY`, `*_TOKEN`, `*_SALT`, `*_AUTH`) is generated only when it is required
 * (`${X:?}`, or `${X}` with no default) or its default is a published literal (CHANGEME, a row of zeros),
 * keeping that default's shape; never when its default is empty (`${X:-}`), a path, a URL, a boolean or
 * a number. Related values stay related: variables that share a published default become one secret and
 * templates of it, and a URL whose password is another variable's published default becomes a template.
 * Other variables without a default are asked for, unless the project env file sets them. A name the
 * seed's base list knows (the example stack's preset) keeps that entry's shape and validation.
 */
import type { ComposeProject } from '../compose/index.js'
import { valueShapeFor } from '../crypto/new-value.js'
import { baseSecrets, type BaseSecretSpec } from './base-secrets.js'
import { isPublishedPlaceholder, notASecretValue, templateOf, urlPassword } from './value-kinds.js'

/** True when a name marks a value as a secret to generate. */
export function looksLikeSecretName(name: string): boolean {
  if (/(^|_)(PUBLIC_KEY|TLS_KEY|SSL_KEY|PRIVATE_KEY)$/.test(name)) return false
  if (/(^|_)ACCESS_KEY$/.test(name) && !/SECRET_ACCESS_KEY$/.test(name)) return false
  return (
    /_(PASSWORD|PASS|SECRET|KEY|TOKEN|SALT|AUTH)$/.test(name) || /^(PASSWORD|SECRET|TOKEN|SALT)$/.test(name)
  )
}

/**
 * Compose's own variables (Docker's "pre-defined environment variables", v1's too): a stack's own
 * `COMPOSE_PORT_HTTP` (authentik) is the stack's, planned as any other variable.
 */
const composeSettings = new Set([
  'COMPOSE_ANSI',
  'COMPOSE_API_VERSION',
  'COMPOSE_BAKE',
  'COMPOSE_CONVERT_WINDOWS_PATHS',
  'COMPOSE_DOCKER_CLI_BUILD',
  'COMPOSE_ENV_FILES',
  'COMPOSE_EXPERIMENTAL',
  'COMPOSE_FILE',
  'COMPOSE_HTTP_TIMEOUT',
  'COMPOSE_IGNORE_ORPHANS',
  'COMPOSE_INTERACTIVE_NO_CLI',
  'COMPOSE_MENU',
  'COMPOSE_PARALLEL_LIMIT',
  'COMPOSE_PATH_SEPARATOR',
  'COMPOSE_PROFILES',
  'COMPOSE_PROGRESS',
  'COMPOSE_PROJECT_NAME',
  'COMPOSE_REMOVE_ORPHANS',
  'COMPOSE_STATUS_STDOUT',
  'COMPOSE_TLS_VERSION',
])

export interface StackSpecs {
  specs: BaseSecretSpec[]
  /** Referenced names left out, with why (a default, the project env file, a vault setting). */
  skipped: { name: string; reason: string }[]
}

type Variable = { name: string; required: boolean; defaultValue?: string }
type ListVariables = (sites: ComposeProject['references']) => Variable[]

/** The specs of every variable the project references, each with the reason for its plan. */
export function specsForStack(project: ComposeProject, listVariables: ListVariables): StackSpecs {
  const specs: BaseSecretSpec[] = []
  const skipped: { name: string; reason: string }[] = []
  const onCommandLine = commandLineUsers(project)
  for (const variable of listVariables(project.references)) {
    const { name, defaultValue } = variable
    const preset = baseSecrets.find((spec) => spec.name === name)
    const kind = defaultValue === undefined ? undefined : notASecretValue(defaultValue)
    if (name.startsWith('VAULT_')) {
      skipped.push({ name, reason: 'a vault setting' })
    } else if (composeSettings.has(name)) {
      skipped.push({ name, reason: 'a compose setting' })
    } else if (project.origins[name] === 'env-file') {
      const value = project.variables[name] ?? ''
      const placeholder = looksLikeSecretName(name) && isPublishedPlaceholder(value)
      skipped.push({
        name,
        reason: placeholder
          ? 'set in the project env file to a published placeholder: vault secrets import --move it, then vault secrets init replaces it'
          : 'set in the project env file (vault secrets import moves it)',
      })
    } else if (preset?.source === 'input' && defaultValue === undefined) {
      specs.push({ ...preset, reason: preset.required ? 'required: an input' : 'optional input' })
    } else if (looksLikeSecretName(name) && preset?.source !== 'input' && kind === undefined) {
      const shape = valueShapeFor(name)
      const summary = shape === 'hex32' ? '32-byte random value, hex' : 'generated password'
      const why =
        defaultValue === undefined
          ? variable.required
            ? 'required (${X:?}), no default'
            : 'required: no default'
          : 'its default is a published placeholder'
      const where = onCommandLine.get(name)
      specs.push({
        ...(preset ?? { name, summary, source: shape, required: true }),
        published: defaultValue,
        reason: where ? `${why}; on the command line of ${where}, the same value` : why,
      })
    } else if (defaultValue !== undefined) {
      skipped.push({ name, reason: kind ?? 'has a default' })
    } else {
      specs.push({
        name,
        summary: 'referenced by the stack',
        source: 'input',
        required: true,
        reason: 'required, no default: an input',
      })
    }
  }
  relate(specs, skipped, listVariables(project.references))
  return { specs, skipped }
}

/**
 * Keeps related values related: generated specs sharing one published default follow the first (a
 * `*_PASSWORD` first, then by name) as templates; a skipped URL whose password is a generated spec's
 * published default becomes a template of it.
 */
function relate(specs: BaseSecretSpec[], skipped: StackSpecs['skipped'], variables: Variable[]): void {
  const generated = specs.filter((spec) => spec.source !== 'input' && spec.published !== undefined)
  const leaders = new Map<string, BaseSecretSpec>()
  const rank = (spec: BaseSecretSpec) => (/PASSWORD$/.test(spec.name) ? 0 : 1)
  for (const spec of [...generated].sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : 1))) {
    const leader = leaders.get(spec.published!)
    if (!leader) {
      leaders.set(spec.published!, spec)
      continue
    }
    Object.assign(spec, {
      source: 'template',
      template: `\${${leader.name}}`,
      summary: `a template of ${leader.name}`,
      reason: `shares its published default with ${leader.name}: one secret, stored as the template \${${leader.name}}`,
    })
  }
  for (const variable of variables) {
    const entry = skipped.find((candidate) => candidate.name === variable.name)
    const url = variable.defaultValue === undefined ? undefined : urlPassword(variable.defaultValue)
    if (!entry || !url || entry.reason !== 'a URL with a password') continue
    const leader = leaders.get(url.password)
    if (!leader) {
      entry.reason = 'a URL whose password is no other variable: set it yourself'
      continue
    }
    skipped.splice(skipped.indexOf(entry), 1)
    specs.push({
      name: variable.name,
      summary: `a template of ${leader.name}`,
      source: 'template',
      required: true,
      template: templateOf(variable.defaultValue!, url.password, leader.name),
      published: variable.defaultValue,
      reason: `its password is ${leader.name}'s published default: stored as a template of ${leader.name}`,
    })
  }
}

/** The services whose `command` or `entrypoint` references each variable, comma-separated. */
function commandLineUsers(project: ComposeProject): Map<string, string> {
  const users = new Map<string, Set<string>>()
  for (const site of project.references) {
    if (!/^(command|entrypoint)(\.|$|\[)/.test(site.field) || site.service === '') continue
    users.set(site.name, (users.get(site.name) ?? new Set()).add(site.service))
  }
  return new Map([...users].map(([name, services]) => [name, [...services].sort().join(', ')]))
}
