/**
 * Human passwords: argon2id through Node 24's `crypto.argon2` (RFC 9106, second recommended parameter
 * set), stored in the PHC string form, checked in constant time. An unknown user is checked against a
 * dummy hash of the same cost, so it takes what a wrong password takes.
 */
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const argon2Async = promisify(argon2)

const parameters = { memory: 65536, passes: 3, parallelism: 1 }
const phcForm =
  /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{16,128})$/

/** The longest password accepted (argon2 takes any length; a bound keeps hostile bodies cheap). */
export const maxPasswordLength = 1024
/** The shortest password a human account may have. */
export const minPasswordLength = 12

/** Hashes a human password with argon2id (m=64 MiB, t=3, p=1). */
export async function hashPassword(password: string): Promise<string> {
  const nonce = randomBytes(16)
  const hash = await argon2Async('argon2id', { message: password, nonce, tagLength: 32, ...parameters })
  return `$argon2id$v=19$m=${parameters.memory},t=${parameters.passes},p=${parameters.parallelism}$${nonce.toString('base64url')}$${hash.toString('base64url')}`
}

/** Whether `password` matches the stored PHC string (false for a malformed one). */
export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const match = phcForm.exec(stored)
  if (!match) return false
  const [, memory, passes, parallelism, nonce, expected] = match
  const tag = Buffer.from(expected!, 'base64url')
  const actual = await argon2Async('argon2id', {
    message: password,
    nonce: Buffer.from(nonce!, 'base64url'),
    tagLength: tag.length,
    memory: Number(memory),
    passes: Number(passes),
    parallelism: Number(parallelism),
  })
  return actual.length === tag.length && timingSafeEqual(actual, tag)
}

let dummy: Promise<string> | undefined

/** A hash of a random password with the same parameters, for unknown users (made once). */
export function dummyPasswordHash(): Promise<string> {
  return (dummy ??= hashPassword(randomBytes(24).toString('base64url')))
}
