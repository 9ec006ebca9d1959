/**
 * The CLI's own credentials: names whose values let their holder act as the stack's identity. No
 * output of the CLI gives them away, whatever their source: `vault run`'s child never receives them
 * and a `vault inject` template never reaches them (a template from a third-party stack could
 * otherwise write `${VAULT_CLIENT_SECRET}` into a file a container mounts).
 */
export const withheldVariables = [
  'VAULT_CLIENT_SECRET',
  'VAULT_TOKEN',
  'VAULT_ACCESS_TOKEN',
  // a CI job's OIDC token for the vault (not GitHub's ACTIONS_ID_TOKEN_REQUEST_*: a child may mint its own)
  'VAULT_OIDC_TOKEN',
] as const

/** Whether `name` is one of the withheld credentials. */
export function isWithheld(name: string): boolean {
  return (withheldVariables as readonly string[]).includes(name)
}
