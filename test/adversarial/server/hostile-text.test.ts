/**
 * Issue 14 item 5 (server side): text a client writes must never reach an audit row with raw control
 * characters. A client id outside [A-Za-z0-9_.-] is refused before anything stores it, and every other
 * request-borne field is stored with its controls escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  adminCreateEnvironment,
  adminCreateIdentity,
  adminListEnvironments,
  adminListIdentities,
} from '../../../src/server/admin.js'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { auditRows, loginBody, send } from './client.js'

// eslint-disable-next-line no-control-regex
const rawControl = /[\u0000-\u001f\u007f-\u009f]/

describe('hostile text in audit rows', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer()
  })
  afterAll(() => vault?.stop())

  it.each([
    ['clear screen and a title change', '\u001b[2J\u001b]0;pwned\u0007'],
    ['a newline faking a second row', 'vc_x\n2026-01-01 admin secret.read OK'],
    ['a C1 CSI', 'vc_\u009b2J'],
    ['a NUL', 'vc_\u0000x'],
    ['a space and quotes', 'vc_ "x"'],
  ])('refuses a client_id holding %s and stores none of it', async (_attack, clientId) => {
    const before = (await auditRows(vault)).length
    const answer = await send(vault, { ...loginBody(clientId, 'wrong'), from: '127.0.5.1' })
    expect(answer.status).toBe(400)
    const rows = (await auditRows(vault)).slice(before)
    for (const row of rows)
      for (const field of Object.values(row)) expect(String(field)).not.toMatch(rawControl)
  })

  it('stores a hostile ?project= of a denied request escaped', async () => {
    const token = await vault.token(vault.deploymentCredentials)
    const before = (await auditRows(vault)).length
    const answer = await send(vault, {
      path: `/api/v1/secrets?environment=dev&project=${encodeURIComponent('\u001b[2J\nFAKE')}`,
      headers: { authorization: `Bearer ${token}` },
    })
    expect(answer.status).toBe(403)
    const rows = (await auditRows(vault)).slice(before)
    expect(rows.some((row) => row.detail?.includes('\\x1b[2J\\x0aFAKE'))).toBe(true)
    for (const row of rows)
      for (const field of Object.values(row)) expect(String(field)).not.toMatch(rawControl)
  })

  it.each([
    ['an identity name with a clear-screen sequence', 'identity', '\u001b[2Jdeploy'],
    ['an identity name with a newline', 'identity', 'deploy\nadmin'],
    ['an environment display name with a title change', 'environment', 'Prod\u001b]0;pwned\u0007'],
    ['an environment display name with a bidi override', 'environment', 'prod\u202eved'],
  ])('refuses %s and stores nothing', async (_attack, kind, name) => {
    const admin = { dbUrl: vault.dbUrl, encryptionKey: vault.encryptionKey }
    if (kind === 'identity') {
      const before = await adminListIdentities(admin, vault.projectId)
      await expect(adminCreateIdentity(admin, vault.projectId, name, 'dev=read')).rejects.toThrow(/invalid/)
      expect(await adminListIdentities(admin, vault.projectId)).toEqual(before)
    } else {
      const before = await adminListEnvironments(admin, vault.projectId)
      await expect(adminCreateEnvironment(admin, vault.projectId, 'hostile', name)).rejects.toThrow(
        /control characters/,
      )
      expect(await adminListEnvironments(admin, vault.projectId)).toEqual(before)
    }
  })
})
