/**
 * Envelope encryption primitives: AES-256-GCM sealing with associated data, HKDF sub-keys, the
 * fingerprint of a key-encryption key and the parsing of hex keys. A failed open is an
 * IntegrityError that never carries plaintext or key material.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto'
import { IntegrityError, UsageError } from '../errors.js'

const nonceBytes = 12
const tagBytes = 16
const sealVersion = 'v1'
const keyObjects = new WeakMap<Buffer, KeyObject>()

function keyObjectOf(key: Buffer): KeyObject {
  let object = keyObjects.get(key)
  if (!object) {
    object = createSecretKey(key)
    keyObjects.set(key, object)
  }
  return object
}

/** Parses a 64-hex-character key into 32 bytes; the error names the variable, never the value. */
export function parseHexKey(text: string | undefined, variable: string): Buffer {
  if (text === undefined || text === '') {
    throw new UsageError(`${variable} is not set`, {
      hint: `generate one with: vault pwgen --bytes 32 --encoding hex`,
    })
  }
  const trimmed = text.trim()
  if (!/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    throw new UsageError(
      `${variable} must be exactly 64 hexadecimal characters (32 bytes); got ${trimmed.length} characters`,
      {
        hint: `generate one with: vault pwgen --bytes 32 --encoding hex`,
      },
    )
  }
  return Buffer.from(trimmed, 'hex')
}

/** A short public fingerprint of a key-encryption key, stored in the database to detect a wrong key. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update('vault-kek-fingerprint-v1\0').update(key).digest('hex').slice(0, 16)
}

/** Derives a 32-byte sub-key for one purpose from a root key (HKDF-SHA256). */
export function deriveKey(root: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `vault:${purpose}`, 32))
}

/** Fresh random key material. */
export function randomKey(): Buffer {
  return randomBytes(32)
}

/** Encrypts with AES-256-GCM under a random nonce, binding `associatedData`; returns text `v1.<base64>`. */
export function seal(key: Buffer, plaintext: Buffer, associatedData: string): string {
  const nonce = randomBytes(nonceBytes)
  const cipher = createCipheriv('aes-256-gcm', keyObjectOf(key), nonce)
  cipher.setAAD(Buffer.from(associatedData, 'utf8'))
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
  return `${sealVersion}.${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64')}`
}

/** Decrypts a sealed text; a tampered text, a wrong key or other associated data is an IntegrityError. */
export function open(key: Buffer, sealed: string, associatedData: string, what = 'ciphertext'): Buffer {
  const [version, encoded] = sealed.split('.', 2)
  if (version !== sealVersion || encoded === undefined) throw integrityFailure(what)
  const raw = Buffer.from(encoded, 'base64')
  if (raw.length < nonceBytes + tagBytes) throw integrityFailure(what)
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyObjectOf(key), raw.subarray(0, nonceBytes))
    decipher.setAAD(Buffer.from(associatedData, 'utf8'))
    decipher.setAuthTag(raw.subarray(nonceBytes, nonceBytes + tagBytes))
    return Buffer.concat([decipher.update(raw.subarray(nonceBytes + tagBytes)), decipher.final()])
  } catch {
    throw integrityFailure(what)
  }
}

function integrityFailure(what: string): IntegrityError {
  return new IntegrityError(`${what} failed its integrity check (tampered, moved or under another key)`, {
    hint: 'restore the row from a backup; the stored data is not trustworthy',
  })
}
