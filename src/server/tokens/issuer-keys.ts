/**
 * The signing keys of the OIDC issuers identities trust, from each issuer's discovery document
 * (`/.well-known/openid-configuration` → `jwks_uri`, on the issuer's own origin) and cached: each
 * document for its Cache-Control max-age (five minutes when it says nothing, a day at most). A token
 * whose `kid` is not in the cached set refetches the set at most once a minute per issuer, so a flood
 * of made-up kids costs the issuer one request a minute while a real key rotation is picked up at once.
 * The clock and the fetch are injectable.
 */
import {
  createLocalJWKSet,
  errors,
  type FlattenedJWSInput,
  type CompactJWSHeaderParameters,
  type JWTVerifyGetKey,
} from 'jose'
import { fetchIssuerJson, IssuerUnavailableError, type IssuerFetchOptions } from './issuer-fetch.js'

export interface IssuerKeysOptions extends IssuerFetchOptions {
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number
  /** Least time between two refetches caused by an unknown kid, per issuer (default 60 s). */
  unknownKeyIntervalMs?: number
  /** Cache time of a document whose answer names no max-age (default 300 s). */
  defaultMaxAgeSeconds?: number
  /** Longest cache time, whatever max-age says (default one day). */
  maxMaxAgeSeconds?: number
}

interface Cached<T> {
  value: T
  expiresAt: number
}

interface IssuerEntry {
  discovery?: Cached<URL>
  keys?: Cached<JWTVerifyGetKey>
  /** The JWKS fetch under way, shared by every request that needs it. */
  pending?: Promise<JWTVerifyGetKey>
  lastUnknownKeyRefetch: number
}

/** Keys usable for signatures: asymmetric, public (jose refuses a private or secret member anyway). */
function publicKeys(body: unknown): { keys: Record<string, unknown>[] } {
  const keys = (body as { keys?: unknown } | null)?.keys
  if (!Array.isArray(keys)) throw new IssuerUnavailableError('the JWKS holds no "keys" list')
  return {
    keys: keys.filter(
      (key): key is Record<string, unknown> =>
        typeof key === 'object' &&
        key !== null &&
        ['RSA', 'EC', 'OKP'].includes(String((key as { kty?: unknown }).kty)) &&
        !Object.hasOwn(key, 'd'),
    ),
  }
}

/** The discovery URL of an issuer (OpenID Connect Discovery 1.0, section 4). */
export function discoveryUrl(issuer: string): URL {
  return new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`)
}

/** The cached key sets of the trusted issuers of one server process. */
export class IssuerKeys {
  private readonly entries = new Map<string, IssuerEntry>()
  private readonly now: () => number

  constructor(private readonly options: IssuerKeysOptions = {}) {
    this.now = options.now ?? Date.now
  }

  /** A jose key resolver for tokens of `issuer` (which the caller already matched against a trust). */
  resolver(issuer: string): JWTVerifyGetKey {
    return (header, token) => this.keyFor(issuer, header, token)
  }

  private async keyFor(issuer: string, header: CompactJWSHeaderParameters, token: FlattenedJWSInput) {
    const entry = this.entry(issuer)
    const cached = entry.keys && this.now() < entry.keys.expiresAt ? entry.keys.value : undefined
    const keys = cached ?? (await this.refresh(issuer, entry))
    try {
      return await keys(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || !cached) throw error
    }
    if (entry.pending) return (await entry.pending)(header, token)
    if (this.now() - entry.lastUnknownKeyRefetch < (this.options.unknownKeyIntervalMs ?? 60_000)) {
      throw new errors.JWKSNoMatchingKey()
    }
    entry.lastUnknownKeyRefetch = this.now()
    return (await this.refresh(issuer, entry))(header, token)
  }

  private entry(issuer: string): IssuerEntry {
    let entry = this.entries.get(issuer)
    if (!entry) this.entries.set(issuer, (entry = { lastUnknownKeyRefetch: -Infinity }))
    return entry
  }

  private refresh(issuer: string, entry: IssuerEntry): Promise<JWTVerifyGetKey> {
    entry.pending ??= this.fetchKeys(issuer, entry).finally(() => {
      entry.pending = undefined
    })
    return entry.pending
  }

  private async fetchKeys(issuer: string, entry: IssuerEntry): Promise<JWTVerifyGetKey> {
    const origin = new URL(issuer).origin
    if (!entry.discovery || this.now() >= entry.discovery.expiresAt) {
      const discovery = await fetchIssuerJson(discoveryUrl(issuer), origin, this.options)
      const document = discovery.body as { issuer?: unknown; jwks_uri?: unknown } | null
      if (document?.issuer !== issuer) {
        throw new IssuerUnavailableError(`the discovery document of ${issuer} names another issuer`)
      }
      let jwksUri: URL
      try {
        jwksUri = new URL(String(document.jwks_uri))
      } catch {
        throw new IssuerUnavailableError(`the discovery document of ${issuer} holds no jwks_uri`)
      }
      if (jwksUri.origin !== origin) {
        throw new IssuerUnavailableError(`the jwks_uri of ${issuer} is on another origin (${jwksUri.origin})`)
      }
      entry.discovery = { value: jwksUri, expiresAt: this.expiry(discovery.maxAgeSeconds) }
    }
    const jwks = await fetchIssuerJson(entry.discovery.value, origin, this.options)
    let keys: JWTVerifyGetKey
    try {
      keys = createLocalJWKSet(publicKeys(jwks.body) as unknown as Parameters<typeof createLocalJWKSet>[0])
    } catch (error) {
      if (error instanceof IssuerUnavailableError) throw error
      throw new IssuerUnavailableError(`the JWKS of ${issuer} is malformed`)
    }
    entry.keys = { value: keys, expiresAt: this.expiry(jwks.maxAgeSeconds) }
    return keys
  }

  private expiry(maxAgeSeconds: number | undefined): number {
    const seconds = Math.min(
      maxAgeSeconds ?? this.options.defaultMaxAgeSeconds ?? 300,
      this.options.maxMaxAgeSeconds ?? 86_400,
    )
    return this.now() + seconds * 1000
  }
}
