/**
 * `vault login` and `vault logout`: a fresh client-credentials exchange cached per (domain, client id),
 * and the removal (with revocation) of that cache entry.
 */
import { refuseStackDomainForPassword, type ConnectionSettings } from './settings.js'
import { createSession } from './session.js'
import type { TokenStoreKind } from './token-store.js'
import { VaultApi } from './vault-api.js'

export interface LoginResult {
  domain: string
  clientId: string
  identity: string
  project: string
  /** ISO time the token expires. */
  expiresAt: string
  /** Where the token is cached. */
  store: TokenStoreKind
}

export interface LogoutResult {
  domain: string
  clientId: string
  removed: boolean
}

/** Logs in and returns who the token belongs to (never the token). */
export async function login(settings: ConnectionSettings): Promise<LoginResult> {
  const session = createSession(settings)
  const outcome = await session.login()
  const whoami = await new VaultApi(session).whoami()
  return {
    domain: settings.domain!,
    clientId: settings.clientId!,
    identity: whoami.identity.name,
    project: whoami.project.name,
    expiresAt: new Date(outcome.expiresAt).toISOString(),
    store: outcome.store,
  }
}

export interface HumanLoginResult {
  domain: string
  user: string
  role: string
  /** ISO time the session ends at the latest (30 minutes without use end it sooner). */
  expiresAt: string
  store: TokenStoreKind
}

/**
 * Signs a human in and caches the token per (domain, user); never returns the token. The password is
 * asked for (`password`) only after the vault is known to be one the human named (not a stack file).
 */
export async function loginHuman(
  settings: ConnectionSettings,
  password: () => Promise<string>,
): Promise<HumanLoginResult> {
  refuseStackDomainForPassword(settings)
  const session = createSession(settings)
  const outcome = await session.signIn(await password())
  return {
    domain: settings.domain!,
    user: settings.user!,
    role: outcome.role,
    expiresAt: new Date(outcome.expiresAt).toISOString(),
    store: outcome.store,
  }
}

/** Revokes and forgets the cached token of these settings. */
export async function logout(settings: ConnectionSettings): Promise<LogoutResult> {
  const { removed } = await createSession(settings).logout()
  return {
    domain: settings.domain!,
    clientId: settings.user ? `user:${settings.user}` : settings.clientId!,
    removed,
  }
}
