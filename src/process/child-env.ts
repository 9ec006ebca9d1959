/**
 * The environment `vault run` gives its child: the host's environment plus the vault's values (the
 * vault wins unless the host is preferred), without the client secret or any token of the CLI or the
 * host's copy of the vault server's keys (withheld-variables.ts), and never a vault secret whose name
 * controls the host (`DOCKER_HOST`, `BASH_ENV`, ...) unless allowed.
 */
import { NotConfiguredError } from '../errors.js'
import { refuseHostVariables } from './host-variables.js'
import { hostEnvironment, withheldVariables } from './withheld-variables.js'

export interface ChildEnvironmentOptions {
  /** Host values win over the vault's when both set a name. */
  preferHost?: boolean
  /**
   * Secrets whose names control the host that may still be set, and withheld host variables that may
   * still be passed on (`--allow-env NAME`).
   */
  allowEnv?: readonly string[]
}

/**
 * Merges host and vault values for the child. Throws HostVariableError (exit 4) when a secret's name
 * controls the host and is not in `options.allowEnv`, and NotConfiguredError (exit 3) when a value
 * holds a NUL byte (no environment can carry it; Node's own error would print the value): nothing is
 * started then.
 */
export function buildChildEnvironment(
  host: NodeJS.ProcessEnv,
  secrets: Record<string, string>,
  options: ChildEnvironmentOptions = {},
): Record<string, string> {
  refuseHostVariables(Object.keys(secrets), options.allowEnv)
  const withNul = Object.keys(secrets).filter((name) => secrets[name]!.includes('\0'))
  if (withNul.length > 0) {
    throw new NotConfiguredError(
      `the value of ${withNul.join(', ')} holds a NUL byte, which a process environment cannot carry; nothing was started`,
      { hint: 'store it without NUL bytes (base64, for instance) with vault secrets set' },
    )
  }
  const hostValues = Object.fromEntries(
    Object.entries(hostEnvironment(host, options.allowEnv)).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  )
  const merged = options.preferHost ? { ...secrets, ...hostValues } : { ...hostValues, ...secrets }
  for (const name of withheldVariables) delete merged[name]
  return merged
}
