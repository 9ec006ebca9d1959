/**
 * Credential stamps: a keyed digest of a credential's stored hash (a human's password hash, an
 * identity's client-secret hash), written into what the credential opened (a sign-in session, an
 * access token's row) and compared with the credential's current hash on every use. A password change
 * or a secret rotation gives the credential a new hash, so whatever was opened with the old one stops
 * working whatever the interleaving: a sign-in or token request still in flight while the change
 * commits opens nothing that outlives it. Keyed, so that someone who can write SQL but lacks the
 * vault's keys cannot stamp an old session or token for the new credential.
 */
import { hmacSha256 } from './hmac.js'

/** The stamp (base64url) of a credential whose stored hash is `storedHash`. */
export function credentialStamp(key: Buffer, storedHash: string): string {
  return hmacSha256(key).update(`vault-credential-stamp-v1\0${storedHash}`).digest('base64url')
}

/** Whether `stamp` (as stored, possibly NULL from before stamps existed) is the stamp of `storedHash`. */
export function stampMatches(key: Buffer, stamp: unknown, storedHash: string): boolean {
  return typeof stamp === 'string' && stamp === credentialStamp(key, storedHash)
}
