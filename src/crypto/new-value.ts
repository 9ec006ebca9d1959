/**
 * The shape of a generated or rotated value, in one place: 32 random bytes hex-encoded for `*_SECRET`,
 * `*_KEY`, `*_TOKEN` and `*_SALT` values (AUTH_JWT_SECRET, AUTH_STORAGE_ENCRYPTION_KEY, ...), a random
 * password otherwise (`*_PASSWORD`, `*_PASS`); and the shape of a published default a new value must
 * keep (64 hex characters stay 64 hex characters, base64 stays base64 of the same length).
 */
import { randomBytes } from 'node:crypto'
import {
  charsets,
  defaultPasswordLength,
  generatePassword,
  minimumPasswordLength,
  randomSecret,
} from './password.js'

export type ValueShape = 'hex32' | 'password'

/** The shape of a sample value that a new one keeps: its alphabet and its length. */
export interface SampleShape {
  kind: 'hex' | 'HEX' | 'base64' | 'alnum'
  length: number
  /** For base64: how many bytes it encodes (its padding follows). */
  bytes?: number
}

/** The shape a secret named `name` takes. */
export function valueShapeFor(name: string): ValueShape {
  return /(^|_)(SECRET|KEY|TOKEN|SALT)$/.test(name) ? 'hex32' : 'password'
}

/**
 * The shape of a published default worth keeping, or undefined when the default is a word
 * (CHANGEME, mysecret) or shorter than the minimum password length: then the name decides.
 */
export function sampleShapeOf(sample: string): SampleShape | undefined {
  const length = sample.length
  if (length < minimumPasswordLength || length > 4096) return undefined
  if (/^[0-9a-f]+$/.test(sample)) return { kind: 'hex', length }
  if (/^[0-9A-F]+$/.test(sample)) return { kind: 'HEX', length }
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(sample) && length % 4 === 0 && /[+/=]/.test(sample))
    return {
      kind: 'base64',
      length,
      bytes: (length / 4) * 3 - (sample.length - sample.replace(/=+$/, '').length),
    }
  if (/^[A-Za-z0-9]+$/.test(sample) && /\d/.test(sample) && /[a-z]/.test(sample) && /[A-Z]/.test(sample))
    return { kind: 'alnum', length }
  return undefined
}

/** A new random value of `shape`: same alphabet, same length (base64 with the same padding). */
export function newValueShaped(shape: SampleShape): string {
  switch (shape.kind) {
    case 'hex':
      return generatePassword(shape.length, charsets.hex)
    case 'HEX':
      return generatePassword(shape.length, charsets.hex.toUpperCase())
    case 'base64':
      return randomBytes(shape.bytes ?? (shape.length / 4) * 3).toString('base64')
    case 'alnum':
      return generatePassword(shape.length)
  }
}

/**
 * A new random value of `shape`; `length` sets the password length (hex keys stay 32 bytes unless
 * given); `like` is a published default whose shape the new value keeps when it has one.
 */
export function newValue(shape: ValueShape, length?: number, like?: string): string {
  const sample = like === undefined || length !== undefined ? undefined : sampleShapeOf(like)
  if (sample) return newValueShaped(sample)
  if (shape === 'hex32')
    return length === undefined ? randomSecret(32) : generatePassword(length, charsets.hex)
  return generatePassword(length ?? defaultPasswordLength)
}

/** A new random value for a secret named `name` (see newValue). */
export function newValueFor(name: string, length?: number, like?: string): string {
  return newValue(valueShapeFor(name), length, like)
}
