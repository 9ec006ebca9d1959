import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { credentialStamp, stampMatches } from '../../../../src/server/keys/stamp.js'

describe('credential stamps', () => {
  const key = randomBytes(32)
  const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

  it.each<[string, unknown, string, boolean]>([
    ['the stamp of the same hash', credentialStamp(key, hash), hash, true],
    ['the stamp of the old hash after a change', credentialStamp(key, hash), `${hash}x`, false],
    ['a row from before stamps (NULL)', null, hash, false],
    ['an empty stamp', '', hash, false],
    ['the stamp under another key', credentialStamp(randomBytes(32), hash), hash, false],
    ['a number', 42, hash, false],
  ])('%s matches: %s', (_label, stamp, current, expected) => {
    expect(stampMatches(key, stamp, current)).toBe(expected)
  })

  it('is keyed and names nothing of the hash', () => {
    expect(credentialStamp(key, hash)).not.toContain('argon2')
    expect(credentialStamp(key, hash)).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })
})
