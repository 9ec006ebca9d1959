/**
 * Variables no stack receives from the host. The CLI's own credentials (names whose values let their
 * holder act as the stack's identity) are withheld whatever their source: `vault run`'s child never
 * receives them and a `vault inject` template never reaches them (a template from a third-party stack
 * could otherwise write `${VAULT_CLIENT_SECRET}` into a file a container mounts). The vault server's
 * key material (`VAULT_ENCRYPTION_KEY`, `VAULT_JWT_SECRET`, `VAULT_DB_URL`, and their earlier names
 * `ENCRYPTION_KEY`, `JWT_SECRET`, `DB_URL`, still exported on many vault hosts) is withheld from the host environment that `run`, `render`, `inject` and the
 * commands `rotate` starts pass on or interpolate with, unless `--allow-env` names it: an application
 * with its own `ENCRYPTION_KEY` would otherwise receive the vault server's. A vault secret of that
 * name still reaches the stack (it comes from the vault, not the host).
 */

/** The CLI's credentials: never passed on. */
export const withheldVariables = [
  'VAULT_CLIENT_SECRET',
  'VAULT_TOKEN',
  'VAULT_ACCESS_TOKEN',
  // a CI job's OIDC token for the vault (not GitHub's ACTIONS_ID_TOKEN_REQUEST_*: a child may mint its own)
  'VAULT_OIDC_TOKEN',
] as const

/** The vault server's key material, under its names and their earlier unprefixed ones: not passed on from the host. */
export const serverKeyVariables = [
  'VAULT_ENCRYPTION_KEY',
  'VAULT_JWT_SECRET',
  'VAULT_DB_URL',
  'ENCRYPTION_KEY',
  'JWT_SECRET',
  'DB_URL',
] as const

/** Whether `name` is one of the withheld credentials. */
export function isWithheld(name: string): boolean {
  return (withheldVariables as readonly string[]).includes(name)
}

/** Whether the host's value of `name` is kept from a stack (`allowEnv`: the names `--allow-env` gave). */
export function isWithheldFromHost(name: string, allowEnv: readonly string[] = []): boolean {
  if (isWithheld(name)) return true
  return (serverKeyVariables as readonly string[]).includes(name) && !allowEnv.includes(name)
}

/**
 * A copy of the host environment without the withheld variables (isWithheldFromHost): what a stack
 * may see of the host. The copy has no prototype, so `__proto__` or `constructor` is only ever a name.
 */
export function hostEnvironment(
  host: NodeJS.ProcessEnv,
  allowEnv: readonly string[] = [],
): Record<string, string | undefined> {
  const kept: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>
  for (const [name, value] of Object.entries(host)) {
    if (value !== undefined && !isWithheldFromHost(name, allowEnv)) kept[name] = value
  }
  return kept
}

/** The vault server's settings, under their names and their earlier ones: no stack should hold their values. */
export const serverSettingVariables = [
  'VAULT_ENCRYPTION_KEY',
  'VAULT_JWT_SECRET',
  'VAULT_DB_URL',
  ...serverKeyVariables,
] as const

/** The non-empty values of the vault server's settings in `host`, for comparison only (never printed). */
export function serverSettingValues(host: NodeJS.ProcessEnv): string[] {
  return serverSettingVariables.map((name) => host[name] ?? '').filter((value) => value !== '')
}
