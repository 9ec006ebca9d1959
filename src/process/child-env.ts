/**
 * The environment `vault run` gives its child: the host's environment plus the vault's values (the
 * vault wins unless the host is preferred), without the client secret or any token of the CLI.
 */

/** Variables the child never receives, whatever their source. */
const withheldVariables = ['VAULT_CLIENT_SECRET', 'VAULT_TOKEN', 'VAULT_ACCESS_TOKEN'] as const

export interface ChildEnvironmentOptions {
  /** Host values win over the vault's when both set a name. */
  preferHost?: boolean
}

/** Merges host and vault values for the child. */
export function buildChildEnvironment(
  host: NodeJS.ProcessEnv,
  secrets: Record<string, string>,
  options: ChildEnvironmentOptions = {},
): Record<string, string> {
  const hostValues = Object.fromEntries(
    Object.entries(host).filter((entry): entry is [string, string] => entry[1] !== undefined),
  )
  const merged = options.preferHost ? { ...secrets, ...hostValues } : { ...hostValues, ...secrets }
  for (const name of withheldVariables) delete merged[name]
  return merged
}
