import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadKeyring } from '../../../../src/server/keys/keyring.js'
import { protectedColumns, rowMac, rowMacMatches } from '../../../../src/server/keys/row-mac.js'
import { openStore } from '../../../../src/server/migrations.js'

const key = Buffer.alloc(32, 3)
const identity = {
  id: 'i-1',
  project_id: 'p-1',
  name: 'reader',
  client_id: 'vc_1',
  secret_hash: 'ab'.repeat(32),
  permissions: '{"dev":["read"]}',
  revoked_at: null,
  failed_logins: 0,
}

describe('row MACs', () => {
  it('verify an untouched row and ignore the columns they do not cover', () => {
    const row = { ...identity, row_mac: rowMac(key, 'identities', identity) }
    expect(rowMacMatches(key, 'identities', row)).toBe(true)
    expect(rowMacMatches(key, 'identities', { ...row, failed_logins: 4 })).toBe(true)
  })

  it.each(protectedColumns.identities.map((column) => [column]))(
    'catch an edit of identities.%s',
    (column) => {
      const row = { ...identity, row_mac: rowMac(key, 'identities', identity) }
      expect(
        rowMacMatches(key, 'identities', { ...row, [column]: `${String(row[column as keyof typeof row])}x` }),
      ).toBe(false)
    },
  )

  it('keep the MAC of a row sealed before its OIDC trust column existed, and catch setting, widening or clearing the trust', () => {
    const sealedBefore = { ...identity, row_mac: rowMac(key, 'identities', identity) }
    expect(rowMacMatches(key, 'identities', { ...sealedBefore, oidc_trust: null })).toBe(true)
    expect(rowMacMatches(key, 'identities', { ...sealedBefore, oidc_trust: '{"issuer":"https://x"}' })).toBe(
      false,
    )
    const trusted = { ...identity, oidc_trust: '{"subject":"repo:acme/stack:ref:refs/heads/main"}' }
    const row = { ...trusted, row_mac: rowMac(key, 'identities', trusted) }
    expect(rowMacMatches(key, 'identities', row)).toBe(true)
    expect(
      rowMacMatches(key, 'identities', { ...row, oidc_trust: '{"subject":"repo:*:ref:refs/heads/main"}' }),
    ).toBe(false)
    expect(rowMacMatches(key, 'identities', { ...row, oidc_trust: null })).toBe(false)
  })

  it('refuse a missing MAC, a MAC under another key and a MAC moved from another table', () => {
    expect(rowMacMatches(key, 'identities', { ...identity, row_mac: null })).toBe(false)
    expect(
      rowMacMatches(key, 'identities', {
        ...identity,
        row_mac: rowMac(Buffer.alloc(32, 4), 'identities', identity),
      }),
    ).toBe(false)
    const secret = { id: 'i-1', project_id: 'p-1', environment: 'dev', name: 'X', version: 2, deleted: 0 }
    expect(rowMacMatches(key, 'secrets', { ...secret, row_mac: rowMac(key, 'identities', identity) })).toBe(
      false,
    )
    expect(
      rowMacMatches(key, 'secrets', {
        ...secret,
        version: BigInt(2) as unknown as number,
        row_mac: rowMac(key, 'secrets', secret),
      }),
    ).toBe(true)
  })
})

describe('client-secret hashes bound to their identity', () => {
  it('match only for the identity they were made for', async () => {
    const driver = await openStore(`sqlite://${join(mkdtempSync(join(tmpdir(), 'vault-bind-')), 'vault.db')}`)
    try {
      const keyring = await loadKeyring(driver, Buffer.alloc(32, 5))
      const hash = keyring.hashClientSecret('vs_secret', 'identity-a')
      expect(keyring.clientSecretMatches('vs_secret', hash, 'identity-a')).toBe(true)
      expect(keyring.clientSecretMatches('vs_secret', hash, 'identity-b')).toBe(false)
      expect(keyring.clientSecretMatches('vs_other', hash, 'identity-a')).toBe(false)
    } finally {
      await driver.close()
    }
  })
})
