/**
 * An authenticated session with the vault: the access token from the cache when it is still fresh,
 * else a client-credentials exchange (RFC 6749 section 4.4), or in CI the exchange of the job's OIDC
 * token (RFC 7523), whose result is cached per (domain, client id). A request refused with 401 drops the cached token and logs in again once. A human
 * (`vault login --user NAME`, then VAULT_USER=NAME) uses the token of its sign-in, cached per (domain,
 * user); when that session ends, the human signs in again.
 */
import { AuthError, NotConfiguredError } from '../errors.js'
import { tokenAnswer } from './api-answers.js'
import { ciIdentityToken, hasCiToken } from './ci-token.js'
import { decodeAnswer } from './vault-answer.js'
import { createHttpClient, type HttpClient, type HttpRequest, type HttpResponse } from './http.js'
import { needsLoopbackResolution, vaultBaseUrl, type ConnectionSettings } from './settings.js'
import {
  openTokenStore,
  tokenKey,
  type CachedToken,
  type TokenStore,
  type TokenStoreKind,
} from './token-store.js'

/** The OAuth grant type of a CI job's OIDC token (RFC 7523 section 2.1). */
const jwtBearerGrantType = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

/** A token closer than this to its expiry is renewed before use. */
const renewMarginMs = 60_000

export interface LoginResult {
  expiresAt: number
  store: TokenStoreKind
}

/** A vault session: sends authenticated requests and owns the token's life cycle. */
export class VaultSession {
  private token?: CachedToken

  constructor(
    readonly settings: ConnectionSettings,
    private readonly http: HttpClient,
    private readonly store: () => Promise<TokenStore>,
  ) {}

  /**
   * Signs the human `settings.user` in with a password (POST /api/v1/auth/signin) and caches the token
   * per (domain, user) like a machine token. The password is sent once and never stored.
   */
  async signIn(password: string): Promise<LoginResult & { role: string }> {
    const username = this.humanUser()!
    const response = await this.http<unknown>({
      method: 'POST',
      path: 'api/v1/auth/signin',
      json: { username, password },
    })
    const { accessToken, expiresIn, role } = decodeAnswer(
      'POST /api/v1/auth/signin',
      response.body,
      tokenAnswer,
    )
    this.token = { accessToken, expiresAt: Date.now() + expiresIn * 1000 }
    const store = await this.store()
    await store.set(this.cacheKey(), this.token)
    return {
      expiresAt: this.token.expiresAt,
      store: store.kind,
      role: role ?? '',
    }
  }

  /**
   * Exchanges the client credentials for a new token and caches it; without a client secret, a CI
   * job's OIDC token (RFC 7523 JWT bearer, see ci-token.ts).
   */
  async login(): Promise<LoginResult> {
    const { clientId, clientSecret } = this.credentials()
    const ciToken = this.settings.ciToken
    if (!clientSecret && !hasCiToken(ciToken)) {
      throw new NotConfiguredError('no client secret is configured', {
        hint: "set VAULT_CLIENT_SECRET in the environment or the stack's .vault/credentials (vault server init --write-env), or in CI an OIDC token (VAULT_OIDC_TOKEN)",
      })
    }
    const form: Record<string, string> = clientSecret
      ? { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }
      : {
          grant_type: jwtBearerGrantType,
          client_id: clientId,
          assertion: await ciIdentityToken(ciToken!, this.settings.domain ?? ''),
        }
    const response = await this.http<unknown>({
      method: 'POST',
      path: 'api/v1/auth/token',
      form,
    }).catch((error: unknown) => {
      if (clientSecret || !(error instanceof AuthError)) throw error
      throw new AuthError(error.message.replace('refused the credentials', 'refused the OIDC token'), {
        hint: `check the OIDC trust of ${clientId} (vault identity update) against the job's token`,
      })
    })
    const { accessToken, expiresIn } = decodeAnswer('POST /api/v1/auth/token', response.body, tokenAnswer)
    this.token = { accessToken, expiresAt: Date.now() + expiresIn * 1000 }
    const store = await this.store()
    await store.set(this.cacheKey(), this.token)
    return { expiresAt: this.token.expiresAt, store: store.kind }
  }

  /** Revokes the cached token on the server (best effort) and removes it from the cache. */
  async logout(): Promise<{ removed: boolean }> {
    const store = await this.store()
    const cached = await store.get(this.cacheKey())
    if (cached && cached.expiresAt > Date.now()) {
      const signOut = { method: 'POST' as const, path: 'api/v1/auth/signout', bearer: cached.accessToken }
      const revoke = {
        method: 'POST' as const,
        path: 'api/v1/auth/revoke',
        json: { token: cached.accessToken },
      }
      await this.http(this.humanUser() ? signOut : revoke).catch(() => undefined)
    }
    return { removed: await store.delete(this.cacheKey()) }
  }

  /** Sends a request without a token (health checks). */
  async anonymous<T>(request: Omit<HttpRequest, 'bearer'>): Promise<HttpResponse<T>> {
    return this.http<T>(request)
  }

  /** Sends an authenticated request, logging in first or again when needed. */
  async request<T>(request: Omit<HttpRequest, 'bearer'>): Promise<HttpResponse<T>> {
    const bearer = await this.accessToken()
    try {
      return await this.http<T>({ ...request, bearer })
    } catch (error) {
      const renewable = this.machineLogin() && !this.humanUser()
      if (!(error instanceof AuthError) || !/HTTP 401/.test(error.message) || !renewable) throw error
      await (await this.store()).delete(this.cacheKey())
      await this.login()
      return this.http<T>({ ...request, bearer: this.token!.accessToken })
    }
  }

  /** A fresh access token (logging in when needed) for a request sent elsewhere, such as a stream. */
  async bearer(): Promise<string> {
    return this.accessToken()
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt - renewMarginMs > Date.now()) return this.token.accessToken
    const cached = await (await this.store()).get(this.cacheKey())
    if (cached && cached.expiresAt - renewMarginMs > Date.now()) {
      this.token = cached
      return cached.accessToken
    }
    const user = this.humanUser()
    if (user) {
      throw new NotConfiguredError(
        cached ? `the session of ${user} has expired` : `${user} is not signed in`,
        {
          hint: `run vault login --user ${user} (or unset VAULT_USER to use the machine identity)`,
        },
      )
    }
    if (!this.machineLogin()) {
      throw new NotConfiguredError(cached ? 'the cached access token has expired' : 'not logged in', {
        hint: 'run vault login, or set VAULT_CLIENT_ID and VAULT_CLIENT_SECRET',
      })
    }
    await this.login()
    return this.token!.accessToken
  }

  private credentials(): { clientId: string; clientSecret?: string } {
    if (!this.settings.clientId) {
      throw new NotConfiguredError('no client id is configured', {
        hint: "set VAULT_CLIENT_ID (and VAULT_CLIENT_SECRET) in the environment or the stack's .vault/credentials (vault server init --write-env)",
      })
    }
    return { clientId: this.settings.clientId, clientSecret: this.settings.clientSecret }
  }

  /** Whether this session can log in by itself: a client secret, or a CI job's OIDC token. */
  private machineLogin(): boolean {
    return Boolean(this.settings.clientSecret) || hasCiToken(this.settings.ciToken)
  }

  /** The signed-in human whose token this session uses, when VAULT_USER or --user names one. */
  private humanUser(): string | undefined {
    return this.settings.user
  }

  private cacheKey(): string {
    const user = this.humanUser()
    return tokenKey(vaultBaseUrl(this.settings).href, user ? `user:${user}` : this.credentials().clientId)
  }
}

/** How a session's transport behaves (see HttpClientOptions). */
export interface SessionOptions {
  /** Retry a connection nothing accepted (default true; --fallback turns it off). */
  retryUnreachable?: boolean
  /** Abandons every request of the session when aborted. */
  signal?: AbortSignal
}

/** VAULT_HTTP_TIMEOUT: the seconds one request may take (default 30); a value that is not a positive number is ignored. */
export function httpTimeoutMs(env: NodeJS.ProcessEnv): number | undefined {
  const seconds = Number(env.VAULT_HTTP_TIMEOUT)
  return env.VAULT_HTTP_TIMEOUT && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined
}

/** A session for the settings, with the transport and token store of this machine. */
export function createSession(
  settings: ConnectionSettings,
  env: NodeJS.ProcessEnv = process.env,
  options: SessionOptions = {},
): VaultSession {
  const baseUrl = vaultBaseUrl(settings)
  const http = createHttpClient({
    baseUrl,
    timeoutMs: httpTimeoutMs(env),
    loopbackOnly: needsLoopbackResolution(baseUrl, settings),
    retryUnreachable: options.retryUnreachable,
    signal: options.signal,
  })
  let store: Promise<TokenStore> | undefined
  return new VaultSession(settings, http, () => (store ??= openTokenStore(env)))
}
