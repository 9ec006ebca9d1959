/**
 * `render --check` for an operator migrating a stack into the vault: every secret-looking variable
 * the stack uses that resolves to a default written in the compose file (`${X:-default}`), to the
 * shell's value or to the project env file's (a published example .env) instead of the vault is a warning; one that holds one of the vault server's own
 * settings (its encryption key, token signing secret or database URL) is an error. And a vault secret
 * whose value is copied inside another (not a template referencing it) is a warning: rotating it leaves
 * the copy behind. Values are compared, never printed.
 */
import { containersOf, looksSecret, minContainedLength } from '../text/contained-values.js'
import { listVariables } from './references.js'
import type { ComposeProblem, ComposeProject } from './types.js'

export { looksSecret }

/** What the check needs besides the project; absent parts are not checked. */
export interface SecretOriginContext {
  /** The values of the vault server's settings in the host environment (VAULT_ENCRYPTION_KEY, ...). */
  serverSettings?: readonly string[]
  /** The vault templates whose value changes with a secret (they may hold it). */
  templatesNaming?: (name: string) => readonly string[]
}

/** The vault server's settings under their names: its own stack may hold them (with --allow-env). */
const serverSettingNames = /^(VAULT_)?(ENCRYPTION_KEY|JWT_SECRET|DB_URL)$/

/** Where a value came from instead of the vault, and how to move it there. */
const notFromVault = {
  default: ['the default written in the compose file', 'vault secrets set NAME'],
  shell: ["the shell's value", 'vault secrets set NAME'],
  '.env': ["the project env file's value", 'vault secrets import .env --only NAME --move'],
} as const

/** The warnings and errors above for a project loaded with its reference index. */
export function secretOriginProblems(
  project: ComposeProject,
  context: SecretOriginContext = {},
): ComposeProblem[] {
  const problems: ComposeProblem[] = []
  const settings = new Set((context.serverSettings ?? []).filter((value) => value !== ''))
  const used = new Set(project.references.filter((site) => site.service !== '').map((site) => site.name))
  for (const variable of listVariables(project.references, project.origins)) {
    if (!used.has(variable.name)) continue
    const source = variable.source
    const value =
      source === 'default' ? (variable.defaultValue ?? '') : (project.variables[variable.name] ?? '')
    if (value === '' || !looksSecret(variable.name, value)) continue
    if (settings.has(value) && !serverSettingNames.test(variable.name)) {
      problems.push({
        level: 'error',
        code: 'server_setting_in_stack',
        message: `${variable.name} holds the value of one of the vault server's own settings (its encryption key, token secret or database URL) from this host: give the stack its own value (vault secrets set ${variable.name})`,
        variable: variable.name,
      })
    } else if (source !== undefined && source in notFromVault) {
      const [where, fix] = notFromVault[source as keyof typeof notFromVault]
      problems.push({
        level: 'warning',
        code: 'secret_not_from_vault',
        message: `${variable.name} looks like a secret but resolves to ${where}, not the vault: ${fix.replace('NAME', variable.name)}`,
        variable: variable.name,
      })
    }
  }
  return [...problems, ...copiedSecrets(project, context)]
}

/** Vault secrets whose value another vault secret holds without referencing it. */
function copiedSecrets(project: ComposeProject, context: SecretOriginContext): ComposeProblem[] {
  const values: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [name, origin] of Object.entries(project.origins))
    if (origin === 'vault') values[name] = project.variables[name] ?? ''
  const problems: ComposeProblem[] = []
  const looked = new Set<string>()
  const templated = (name: string) => (context.templatesNaming?.(name) ?? []).length > 0
  // Secrets with one value: the first is looked for, the others show as its copies. A secret that
  // templates name comes first: `secrets init` stores B as ${A}, and B's name may sort before A's.
  const order = Object.keys(values).sort(
    (a, b) => Number(templated(b)) - Number(templated(a)) || (a < b ? -1 : 1),
  )
  for (const name of order) {
    if (looked.has(values[name]!)) continue
    looked.add(values[name]!)
    if (values[name]!.length < minContainedLength) {
      if (looksSecret(name, values[name]!) && values[name] !== '')
        problems.push({
          level: 'info',
          code: 'copy_not_checked',
          message: `${name} is shorter than ${minContainedLength} characters: not checked for copies inside other secrets`,
          variable: name,
        })
      continue
    }
    const allowed = new Set(context.templatesNaming?.(name) ?? [])
    for (const holder of containersOf(values, name, allowed))
      problems.push({
        level: 'warning',
        code: 'copied_secret',
        message: `${holder} holds a copy of the value of ${name}: a rotation of ${name} would leave it behind; write \${${name}} in its place (vault secrets set ${holder} --template)`,
        variable: name,
      })
  }
  return problems
}
