/**
 * Human passwords under argon2id in the PHC string form. Node's own `crypto.argon2` with the parameters
 * read from the string is the oracle for what is stored; malformed or tampered strings never match and
 * never throw; the dummy hash of unknown users has the same cost as a real one.
 */
import { argon2Sync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  dummyPasswordHash,
  hashPassword,
  passwordMatches,
} from '../../../../src/server/humans/password-hash.js'

const phc = /^\$argon2id\$v=19\$m=65536,t=3,p=1\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/

describe('password hashes', () => {
  it('stores argon2id m=64 MiB, t=3, p=1 with a fresh 16-byte salt, as Node computes it', async () => {
    const password = 'correct horse battery staple é'
    const stored = await hashPassword(password)
    const [, salt, tag] = phc.exec(stored)!
    const expected = argon2Sync('argon2id', {
      message: password,
      nonce: Buffer.from(salt!, 'base64url'),
      memory: 65536,
      passes: 3,
      parallelism: 1,
      tagLength: 32,
    })
    expect(Buffer.from(tag!, 'base64url').equals(expected)).toBe(true)
    expect(await hashPassword(password)).not.toBe(stored)
  }, 30_000)

  it('matches the password only', async () => {
    const stored = await hashPassword('s3cret-passw0rd')
    expect(await passwordMatches('s3cret-passw0rd', stored)).toBe(true)
    expect(await passwordMatches('s3cret-passw0rd ', stored)).toBe(false)
    expect(await passwordMatches('', stored)).toBe(false)
  }, 30_000)

  it('reads a hash made with other (cheaper) parameters, as a later change of cost needs', async () => {
    const nonce = Buffer.alloc(16, 1)
    const tag = argon2Sync('argon2id', {
      message: 'pw',
      nonce,
      memory: 64,
      passes: 1,
      parallelism: 1,
      tagLength: 32,
    })
    const stored = `$argon2id$v=19$m=64,t=1,p=1$${nonce.toString('base64url')}$${tag.toString('base64url')}`
    expect(await passwordMatches('pw', stored)).toBe(true)
    expect(await passwordMatches('pW', stored)).toBe(false)
  })

  it.each([
    '',
    'plain text',
    '$argon2i$v=19$m=64,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    '$argon2id$v=16$m=64,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    '$argon2id$v=19$m=99999999,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    '$argon2id$v=19$m=64,t=1,p=1$short$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    '$argon2id$v=19$m=64,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n',
  ])('refuses a malformed or tampered hash %j without throwing', async (stored) => {
    expect(await passwordMatches('pw', stored)).toBe(false)
  })

  it('makes the dummy hash once, with the real parameters', async () => {
    const first = await dummyPasswordHash()
    expect(first).toMatch(phc)
    expect(await dummyPasswordHash()).toBe(first)
  }, 30_000)
})
