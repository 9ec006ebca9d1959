/**
 * A bounded in-memory cache of secret values this process has already decrypted, so that reading the
 * same immutable version again skips AES-GCM. An entry answers only for the exact row address (project,
 * environment, name, version: the associated data the value was authenticated under), the exact
 * data-key version and the exact ciphertext text: a flipped bit or a ciphertext copied into another
 * row misses and is opened (and refused) as before. It lives inside one keyring, so a process started
 * with a new ENCRYPTION_KEY (a new keyring) starts empty.
 */
import type { ValueAddress } from '../keys/keyring.js'

interface OpenedValue {
  version: number
  keyVersion: number
  ciphertext: string
  value: string
  bytes: number
}

/** Limits of one cache: values held and their (approximate, UTF-16) size with their ciphertexts. */
export const openedValueLimits = { entries: 20_000, bytes: 32 * 1024 * 1024 }

/** Decrypted values by project, environment and name (one version each); emptied when over a limit. */
export class OpenedValueCache {
  private readonly scopes = new Map<string, Map<string, Map<string, OpenedValue>>>()
  private entries = 0
  private bytes = 0

  constructor(private readonly limits = openedValueLimits) {}

  /** The value opened earlier from exactly this ciphertext, address and key version. */
  get(at: ValueAddress, ciphertext: string, keyVersion: number): string | undefined {
    const entry = this.scopes.get(at.projectId)?.get(at.environment)?.get(at.name)
    if (
      entry === undefined ||
      entry.version !== at.version ||
      entry.keyVersion !== keyVersion ||
      entry.ciphertext !== ciphertext
    ) {
      return undefined
    }
    return entry.value
  }

  /** Remembers a value that was just authenticated and opened from `ciphertext` at `at`. */
  set(at: ValueAddress, ciphertext: string, keyVersion: number, value: string): void {
    const bytes = 2 * (at.name.length + ciphertext.length + value.length) + 96
    if (bytes > this.limits.bytes) return
    if (this.entries + 1 > this.limits.entries || this.bytes + bytes > this.limits.bytes) this.clear()
    let project = this.scopes.get(at.projectId)
    if (project === undefined) {
      project = new Map()
      this.scopes.set(at.projectId, project)
    }
    let environment = project.get(at.environment)
    if (environment === undefined) {
      environment = new Map()
      project.set(at.environment, environment)
    }
    const previous = environment.get(at.name)
    if (previous !== undefined) {
      this.entries--
      this.bytes -= previous.bytes
    }
    environment.set(at.name, { version: at.version, keyVersion, ciphertext, value, bytes })
    this.entries++
    this.bytes += bytes
  }

  /** Forgets every value. */
  clear(): void {
    this.scopes.clear()
    this.entries = 0
    this.bytes = 0
  }

  /** Number of values held. */
  get size(): number {
    return this.entries
  }
}
