/**
 * What every request handler of the vault needs: the store, the keyring, the JWT key, the limits, the
 * proxy trust and the in-memory guards (login throttle, failed-authentication log).
 */
import type { AuditVerifier } from './audit/audit-verifier.js'
import type { ProxyTrust } from './http/client-address.js'
import type { FailedAuthLog } from './tokens/failed-auth-log.js'
import type { Keyring } from './keys/keyring.js'
import type { LoginThrottle } from './tokens/login-throttle.js'
import type { CacheView, ReadCache } from './read-cache.js'
import type { SecretHints } from './secrets/secret-hints.js'
import type { SqlDriver, SqlExecutor } from './store/index.js'
import type { VaultTimings } from './timings.js'

export interface VaultLimits {
  /** Access-token lifetime in seconds (default 900, capped at 3600). */
  tokenTtlSeconds: number
  /** Failed logins of one (client id, source) pair before each further attempt must wait. */
  lockoutThreshold: number
  /** The longest wait between attempts of a (client id, source) pair; the wait doubles up to it. */
  lockoutMaxDelaySeconds: number
  /** Token-endpoint requests per minute per client address. */
  tokenRequestsPerMinute: number
  /** Requests per minute per client address on every endpoint. */
  requestsPerMinute: number
  /** Largest secret value in bytes (413 beyond). */
  maxValueBytes: number
}

export const defaultLimits: VaultLimits = {
  tokenTtlSeconds: 900,
  lockoutThreshold: 5,
  lockoutMaxDelaySeconds: 900,
  tokenRequestsPerMinute: 120,
  requestsPerMinute: 3000,
  maxValueBytes: 64 * 1024,
}

export interface VaultContext {
  driver: SqlDriver
  keyring: Keyring
  jwtSecret: Buffer
  limits: VaultLimits
  /** Session lifetimes and the change feed's intervals (timings.ts; the defaults in production). */
  timings: VaultTimings
  /** Which TCP peers may say who the client is in X-Forwarded-For. */
  trustProxy: ProxyTrust
  /** Deliver webhooks to loopback, private and link-local receivers (tests, a homelab on one host). */
  allowPrivateWebhooks: boolean
  /** Whether the server answers over TLS (HSTS is sent then). */
  tls: boolean
  /**
   * Whether browsers reach it over https: its own TLS, or a TLS-terminating gateway (--behind-proxy,
   * unless SITE_URL says http://).
   */
  httpsForBrowsers: boolean
  loginThrottle: LoginThrottle
  failedAuth: FailedAuthLog
  version: string
  /** The generation-bound read caches (PostgreSQL only: SQLite reads are cheaper than a generation read). */
  readCache?: ReadCache
  /** The rows this process last wrote, for conditional writes (an engine with SqlExecutor.runIf). */
  secretHints?: SecretHints
  /** The audit chain verified from this process's last verified point (the console's audit view). */
  auditVerifier?: AuditVerifier
  /** Called after a commit that queued webhook deliveries. */
  onOutbox?: () => void
}

/** The recurring triple of a scoped operation: the vault, its open transaction and the scope. */
export interface InTransaction<Scope> {
  context: VaultContext
  tx: SqlExecutor
  scope: Scope
  /** The request's view of the read caches, when the engine has them. */
  view?: CacheView
}
