/**
 * The server's key hierarchy: ENCRYPTION_KEY (never stored) wraps a random root key; the root key wraps
 * per-project data keys (versioned); secret versions are sealed under a data key with associated data
 * binding project, environment, name and version. Also the sub-keys for client-secret hashes and the
 * audit chain, and the startup check of the key fingerprint. Unwrapped data keys and opened values are
 * kept in memory for the life of the keyring (values bounded, see opened-values.ts); the process holds
 * the root key anyway, so they give nothing that the process could not decrypt at will. Which version
 * is a project's current one is kept only as long as a database generation vouches for it
 * (data-keys.ts).
 */
import { timingSafeEqual } from 'node:crypto'
import { deriveKey, keyFingerprint, open, randomKey, seal } from '../../crypto/envelope.js'
import { IntegrityError } from '../../errors.js'
import { startAuditChain } from '../audit/audit.js'
import { hmacSha256 } from './hmac.js'
import { DataKeys } from './data-keys.js'
import { OpenedValueCache } from '../secrets/opened-values.js'
import type { Generation } from '../store/driver.js'
import type { SqlDriver, SqlExecutor } from '../store/index.js'

export interface Keyring {
  readonly fingerprint: string
  /**
   * Seals a secret value for one exact row under the project's current data key. `held`: the
   * database generation (PostgreSQL) that the writing transaction checks (read after its request
   * arrived, or relied on and checked before its first write; read-cache.ts); without it the
   * current version is read in `tx`.
   */
  sealValue(
    tx: SqlExecutor,
    at: ValueAddress,
    value: string,
    held?: Generation,
  ): Promise<{ ciphertext: string; keyVersion: number }>
  /** Opens a secret value of one exact row; IntegrityError when it was tampered with or moved. */
  openValue(tx: SqlExecutor, at: ValueAddress, ciphertext: string, keyVersion: number): Promise<string>
  /**
   * Authenticates and decrypts one value without remembering it (the trial decryption of a restore,
   * which reads every version once: caching them would only grow memory).
   */
  trialOpen(tx: SqlExecutor, at: ValueAddress, ciphertext: string, keyVersion: number): Promise<void>
  /** The value of one exact row when this keyring has opened exactly this ciphertext there before. */
  openedBefore(at: ValueAddress, ciphertext: string, keyVersion: number): string | undefined
  /** Keyed hash of a high-entropy client secret, bound to its identity (a copied hash fails elsewhere). */
  hashClientSecret(secret: string, identityId: string): string
  /** Constant-time comparison of a client secret with the stored hash of identity `identityId`. */
  clientSecretMatches(secret: string, storedHash: string, identityId: string): boolean
  /**
   * Binds a pre-binding (schema 1) client-secret hash to its identity: the hash the schema upgrade
   * stores, equal to `hashClientSecret(secret, identityId)`.
   */
  bindClientSecretHash(unboundHash: string, identityId: string): string
  /** Seals a small server-side secret (webhook signing keys) bound to a label. */
  sealInternal(plaintext: string, label: string): string
  openInternal(sealed: string, label: string): string
  readonly auditKey: Buffer
  /** The key of the row MACs of the live database (row-mac.ts). */
  readonly rowMacKey: Buffer
}

export interface ValueAddress {
  projectId: string
  environment: string
  name: string
  version: number
}

const rootLabel = 'vault-root-key'

/**
 * Loads the root key with ENCRYPTION_KEY, creating it on an empty database. A different key stops
 * here, naming both fingerprints, before anything is written.
 */
export async function loadKeyring(driver: SqlDriver, encryptionKey: Buffer): Promise<Keyring> {
  const fingerprint = keyFingerprint(encryptionKey)
  const root = await driver.exclusive('vault:keyring', async (tx) => {
    const [stored] = await tx.all<{ value: string }>(`SELECT value FROM meta WHERE key = 'kek_fingerprint'`)
    if (stored && stored.value !== fingerprint) {
      throw new IntegrityError(
        `ENCRYPTION_KEY does not match this database (expects fingerprint ${stored.value}, got ${fingerprint})`,
        { hint: 'start with the ENCRYPTION_KEY this database was created with; nothing was changed' },
      )
    }
    const [row] = await tx.all<{ wrapped: string }>(
      `SELECT wrapped FROM root_keys ORDER BY version DESC LIMIT 1`,
    )
    if (row) return open(encryptionKey, row.wrapped, rootLabel, 'the root key')
    const fresh = randomKey()
    const now = new Date().toISOString()
    await tx.run(`INSERT INTO root_keys (version, wrapped, created_at) VALUES (1, ?, ?)`, [
      seal(encryptionKey, fresh, rootLabel),
      now,
    ])
    await tx.run(`INSERT INTO meta (key, value) VALUES ('kek_fingerprint', ?)`, [fingerprint])
    await startAuditChain(tx, auditKeyOf(fresh))
    return fresh
  })
  return createKeyring(root, fingerprint)
}

/** Re-wraps the root key under a new ENCRYPTION_KEY; data stays readable, nothing else is rewritten. */
export async function rewrapRootKey(
  driver: SqlDriver,
  previousKey: Buffer,
  nextKey: Buffer,
): Promise<string> {
  await loadKeyring(driver, previousKey)
  return driver.exclusive('vault:keyring', async (tx) => {
    const rows = await tx.all<{ version: number; wrapped: string }>(`SELECT version, wrapped FROM root_keys`)
    for (const row of rows) {
      const root = open(previousKey, row.wrapped, rootLabel, 'the root key')
      await tx.run(`UPDATE root_keys SET wrapped = ? WHERE version = ?`, [
        seal(nextKey, root, rootLabel),
        row.version,
      ])
    }
    const next = keyFingerprint(nextKey)
    await tx.run(`UPDATE meta SET value = ? WHERE key = 'kek_fingerprint'`, [next])
    return next
  })
}

function auditKeyOf(root: Buffer): Buffer {
  return deriveKey(root, 'audit-chain')
}

function createKeyring(root: Buffer, fingerprint: string): Keyring {
  const dataKeys = new DataKeys(root)
  const clientSecretKey = deriveKey(root, 'client-secret-hash')
  const clientSecretBindKey = deriveKey(root, 'client-secret-identity-binding')
  const bind = (unbound: Buffer | string, identityId: string) =>
    hmacSha256(clientSecretBindKey)
      .update(`${identityId}\0`)
      .update(typeof unbound === 'string' ? unbound : unbound.toString('hex'))
      .digest()
  const internalKey = deriveKey(root, 'internal-seal')

  const valueLabel = (at: ValueAddress) => `secret|${at.projectId}|${at.environment}|${at.name}|${at.version}`
  const sealedValue = (at: ValueAddress, text: string) => ({
    text,
    label: valueLabel(at),
    what: `the value of ${at.name} version ${at.version}`,
  })
  const opened = new OpenedValueCache()
  return {
    fingerprint,
    auditKey: auditKeyOf(root),
    async sealValue(tx, at, value, held) {
      const key = await dataKeys.current(tx, at.projectId, held?.auth)
      return {
        ciphertext: seal(key.key, Buffer.from(value, 'utf8'), valueLabel(at)),
        keyVersion: key.version,
      }
    },
    openedBefore: (at, ciphertext, keyVersion) => opened.get(at, ciphertext, keyVersion),
    async openValue(tx, at, ciphertext, keyVersion) {
      const known = opened.get(at, ciphertext, keyVersion)
      if (known !== undefined) return known
      const plain = await dataKeys.open(tx, at.projectId, keyVersion, sealedValue(at, ciphertext))
      const value = plain.toString('utf8')
      opened.set(at, ciphertext, keyVersion, value)
      return value
    },
    async trialOpen(tx, at, ciphertext, keyVersion) {
      const plain = await dataKeys.open(tx, at.projectId, keyVersion, sealedValue(at, ciphertext))
      plain.fill(0)
    },
    rowMacKey: deriveKey(root, 'row-mac'),
    hashClientSecret: (secret, identityId) =>
      bind(hmacSha256(clientSecretKey).update(secret).digest(), identityId).toString('hex'),
    bindClientSecretHash: (unboundHash, identityId) => bind(unboundHash, identityId).toString('hex'),
    clientSecretMatches(secret, storedHash, identityId) {
      const actual = bind(hmacSha256(clientSecretKey).update(secret).digest(), identityId)
      const expected = Buffer.from(storedHash, 'hex')
      return expected.length === actual.length && timingSafeEqual(actual, expected)
    },
    sealInternal: (plaintext, label) => seal(internalKey, Buffer.from(plaintext, 'utf8'), label),
    openInternal: (sealed, label) => open(internalKey, sealed, label, 'a server secret').toString('utf8'),
  }
}
