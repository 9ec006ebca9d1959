/**
 * The shape of a generated or rotated value: 32 random bytes hex-encoded for `*_SECRET`, `*_KEY`,
 * `*_TOKEN` and `*_SALT` values (AUTH_JWT_SECRET, AUTH_STORAGE_ENCRYPTION_KEY, ...), a random password
 * otherwise (`*_PASSWORD`, `*_PASS`).
 */
import { defaultPasswordLength, generatePassword, randomSecret } from './password.js'

export type ValueShape = 'hex32' | 'password'

/** The shape a secret named `name` takes. */
export function valueShapeFor(name: string): ValueShape {
  return /(^|_)(SECRET|KEY|TOKEN|SALT)$/.test(name) ? 'hex32' : 'password'
}

/** A new random value for `name`; `length` sets the password length (hex keys stay 32 bytes unless given). */
export function newValueFor(name: string, length?: number): string {
  if (valueShapeFor(name) === 'hex32')
    return length === undefined ? randomSecret(32) : generatePassword(length, '0123456789abcdef')
  return generatePassword(length ?? defaultPasswordLength)
}
