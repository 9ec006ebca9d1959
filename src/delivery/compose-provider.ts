/**
 * `vault compose up`: vault as a Docker Compose provider (`provider: {type: vault}`). Compose runs the
 * provider and reads JSON messages from its stdout (docker/compose pkg/compose/plugins.go): each
 * `rawsetenv KEY=VALUE` reaches every service that depends on the provider service as KEY, each
 * `setenv KEY=VALUE` as <SERVICE>_KEY. This module turns an environment's secrets into those messages,
 * all of them or none: every name is checked against the server's own rule (src/text/secret-name.ts,
 * so compose's cut at the first `=` gives the name back), and what `vault run` withholds is withheld here too (a name that controls a
 * process unless allowed, the stack's own credentials even when allowed, a value with a NUL byte).
 */
import { AuthError, IntegrityError, NotConfiguredError, NotFoundError, UsageError } from '../errors.js'
import { credentialSecretNames } from '../client/credentials-file.js'
import { refuseHostVariables } from '../process/host-variables.js'
import { isWithheld } from '../process/withheld-variables.js'
import { isSecretName } from '../text/secret-name.js'

/** A message of the provider protocol (compose's JsonMessage). */
export interface ProviderMessage {
  type: 'info' | 'error' | 'setenv' | 'rawsetenv' | 'debug'
  message: string
}

/** Where the secrets come from (VaultApi.listSecrets, one request). */
export interface ProviderSecretSource {
  listSecrets(environment: string | undefined): Promise<{ name: string; value: string }[]>
}

export interface ProviderUpOptions {
  /** The environment slug; undefined lets the server pick the identity's only environment. */
  environment?: string
  /** Requested names, or `['*']` for every secret the identity reads in the environment. */
  secrets: readonly string[]
  /** rawsetenv (exact names) when true, setenv (compose prefixes the service name) when false. */
  raw: boolean
  /** The provider service's name (compose's last argument): setenv names become <SERVICE>_KEY. */
  service: string
  /** Names that control a process and may still be set (`allow-env`), as the dependent receives them. */
  allowEnv?: readonly string[]
}

/** The messages for `up`: one per secret, then one info line (never a value). Throws on any refusal. */
export async function providerUp(
  source: ProviderSecretSource,
  options: ProviderUpOptions,
): Promise<ProviderMessage[]> {
  const requested = requestedNames(options.secrets)
  const answer = await source.listSecrets(options.environment || undefined)
  const byName = secretsByName(answer)
  const selected = requested === 'all' ? [...byName.keys()].sort() : requested
  const missing = selected.filter((name) => !byName.has(name))
  if (missing.length > 0) {
    throw new NotFoundError(
      `no secret ${missing.join(', ')} in ${describeEnvironment(options.environment)}`,
      {
        hint: 'check the names in provider.options.secrets, or set them with vault secrets set',
      },
    )
  }
  const prefix = options.raw ? '' : `${options.service.toUpperCase()}_`
  const received = selected.map((name) => prefix + name)
  const withheld = received.filter(
    (name) => isWithheld(name) || (credentialSecretNames as readonly string[]).includes(name),
  )
  if (withheld.length > 0) {
    throw new AuthError(
      `refusing to set ${withheld.join(', ')}: the stack's vault credentials never reach a container`,
      {
        hint: 'rename the secret',
      },
    )
  }
  refuseHostVariables(received, options.allowEnv)
  const withNul = selected.filter((name) => byName.get(name)!.includes('\0'))
  if (withNul.length > 0) {
    throw new NotConfiguredError(
      `the value of ${withNul.join(', ')} holds a NUL byte, which a process environment cannot carry; nothing was set`,
      { hint: 'store it without NUL bytes (base64, for instance) with vault secrets set' },
    )
  }
  const type = options.raw ? 'rawsetenv' : 'setenv'
  const count = `${selected.length} secret${selected.length === 1 ? '' : 's'}`
  return [
    ...selected.map((name) => ({ type, message: `${name}=${byName.get(name)!}` }) as const),
    { type: 'info', message: `${count} from ${describeEnvironment(options.environment)}` },
  ]
}

/** One message as compose's decoder reads it: a JSON object on a line of its own. */
export function formatProviderMessage(message: ProviderMessage): string {
  return `${JSON.stringify({ type: message.type, message: message.message })}\n`
}

/** The requested names, checked and without repeats, or 'all' for `*`. */
function requestedNames(secrets: readonly string[]): string[] | 'all' {
  if (secrets.length === 0) {
    throw new UsageError('no secrets requested', {
      hint: 'list them in provider.options.secrets, or give * for every secret of the environment',
    })
  }
  if (secrets.includes('*')) {
    if (secrets.length > 1) throw new UsageError('* stands for every secret: give it alone')
    return 'all'
  }
  const invalid = secrets.filter((name) => !isSecretName(name))
  if (invalid.length > 0) {
    throw new UsageError(`not a secret name: ${invalid.map((name) => JSON.stringify(name)).join(', ')}`, {
      hint: 'secret names are UPPER_SNAKE_CASE: letters A-Z, digits and _',
    })
  }
  return [...new Set(secrets)]
}

/** The server's answer by name; a name compose could not deliver unchanged, or a repeat, is refused. */
function secretsByName(answer: unknown): Map<string, string> {
  if (!Array.isArray(answer)) throw new IntegrityError('the vault answered with no list of secrets')
  const byName = new Map<string, string>()
  for (const entry of answer as unknown[]) {
    const { name, value } = (entry ?? {}) as { name?: unknown; value?: unknown }
    if (typeof name !== 'string' || !isSecretName(name) || typeof value !== 'string') {
      const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 64)) : typeof name
      throw new IntegrityError(`the vault answered with a secret that cannot be delivered: name ${shown}`, {
        hint: 'secret names are UPPER_SNAKE_CASE; check the vault server',
      })
    }
    if (byName.has(name)) throw new IntegrityError(`the vault answered with ${name} twice`)
    byName.set(name, value)
  }
  return byName
}

function describeEnvironment(environment: string | undefined): string {
  return environment ? `environment ${environment}` : "the identity's only environment"
}
