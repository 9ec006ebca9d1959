import { describe, expect, it } from 'vitest'
import { checkSameVault, readLiveState, type LiveState } from '../../../src/backup/live-state.js'

const live = (fingerprint: string): LiveState => ({
  fingerprint,
  identities: new Map(),
  revokedTokens: new Map(),
  accounts: new Map(),
})
const target = (replaceVault?: string) => ({ database: 'sqlite:///srv/vault.db', replaceVault })

describe('restore over the live database', () => {
  it('keeps revocations over the same vault, none over an empty database', () => {
    expect(checkSameVault(live('aaaaaaaaaaaaaaaa'), 'aaaaaaaaaaaaaaaa', target())).toBe(true)
    expect(checkSameVault(null, 'aaaaaaaaaaaaaaaa', target())).toBe(false)
  })

  it.each<[string, string | undefined, RegExp]>([
    ['no --replace-vault', undefined, /add --replace-vault bbbbbbbbbbbbbbbb/],
    [
      'the archive fingerprint instead',
      'aaaaaaaaaaaaaaaa',
      /names aaaaaaaaaaaaaaaa, but the database holds bbbbbbbbbbbbbbbb/,
    ],
    ['a hostile value', '\u001b]0;x\u0007', /names no key fingerprint/],
  ])(
    'refuses another vault with %s (exit 6, nothing echoed but fingerprints)',
    (_label, replaceVault, hint) => {
      let refusal: { exitCode?: number; hint?: string; message: string } | undefined
      try {
        checkSameVault(live('bbbbbbbbbbbbbbbb'), 'aaaaaaaaaaaaaaaa', target(replaceVault))
      } catch (error) {
        refusal = error as typeof refusal
      }
      expect(refusal?.message).toMatch(
        /holds another vault \(key fingerprint bbbbbbbbbbbbbbbb; the archive's is aaaaaaaaaaaaaaaa\)/,
      )
      expect(refusal?.exitCode).toBe(6)
      expect(refusal?.hint).toMatch(hint)
      expect(JSON.stringify(refusal)).not.toContain('\u001b')
    },
  )

  it('replaces another vault named by its fingerprint, keeping nothing of it', () => {
    expect(checkSameVault(live('bbbbbbbbbbbbbbbb'), 'aaaaaaaaaaaaaaaa', target('bbbbbbbbbbbbbbbb'))).toBe(
      false,
    )
  })

  it('reads a database without vault tables as holding no vault', async () => {
    const empty = {
      all: async () => {
        throw new Error('no such table: meta')
      },
    }
    expect(await readLiveState(empty)).toBeNull()
  })
})
