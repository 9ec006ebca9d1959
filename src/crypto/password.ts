/**
 * Password and random-value generation. Characters are drawn with crypto.randomInt, which uses
 * rejection sampling, so every character of a charset is equally likely.
 */
import { randomBytes, randomInt } from 'node:crypto'
import { UsageError } from '../errors.js'

/** The named character sets `vault pwgen --charset` accepts. */
export const charsets = {
  alnum: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ascii: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#%&()*+,-./:;<=>?@[]^_{|}~',
  hex: '0123456789abcdef',
  base64url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
} as const

export type CharsetName = keyof typeof charsets

/** The encodings `vault pwgen --bytes` accepts. */
export const byteEncodings = ['hex', 'base64', 'base64url'] as const
export type ByteEncoding = (typeof byteEncodings)[number]

/** The seed's minimum strength: 32 characters. */
export const defaultPasswordLength = 32
/** Shorter passwords need an explicit opt-in. */
export const minimumPasswordLength = 16

/** A password of `length` characters drawn uniformly from `charset`. */
export function generatePassword(
  length: number = defaultPasswordLength,
  charset: string = charsets.alnum,
): string {
  if (!Number.isInteger(length) || length < 1)
    throw new UsageError(`length must be a positive integer, got ${length}`)
  const alphabet = [...new Set(charset)]
  if (alphabet.length < 2) throw new UsageError('a charset needs at least two distinct characters')
  let password = ''
  for (let i = 0; i < length; i++) password += alphabet[randomInt(alphabet.length)]
  return password
}

/** `bytes` random bytes, encoded (the seed's "32-byte random value, hex-encoded" is `randomSecret(32)`). */
export function randomSecret(bytes = 32, encoding: ByteEncoding = 'hex'): string {
  if (!Number.isInteger(bytes) || bytes < 1)
    throw new UsageError(`bytes must be a positive integer, got ${bytes}`)
  return randomBytes(bytes).toString(encoding)
}
