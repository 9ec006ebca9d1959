/**
 * What every request handler of the vault needs: the store, the keyring, the JWT key and the limits.
 */
import type { Keyring } from './keyring.js'
import type { SqlDriver } from './store/index.js'

export interface VaultLimits {
  /** Access-token lifetime in seconds (default 900, capped at 3600). */
  tokenTtlSeconds: number
  /** Consecutive failed logins of one client id before it is locked. */
  lockoutThreshold: number
  lockoutSeconds: number
  /** Token-endpoint requests per minute per client address. */
  tokenRequestsPerMinute: number
  /** Largest secret value in bytes (413 beyond). */
  maxValueBytes: number
}

export const defaultLimits: VaultLimits = {
  tokenTtlSeconds: 900,
  lockoutThreshold: 5,
  lockoutSeconds: 60,
  tokenRequestsPerMinute: 120,
  maxValueBytes: 64 * 1024,
}

export interface VaultContext {
  driver: SqlDriver
  keyring: Keyring
  jwtSecret: Buffer
  limits: VaultLimits
  behindProxy: boolean
  version: string
  /** Called after a commit that queued webhook deliveries. */
  onOutbox?: () => void
}
