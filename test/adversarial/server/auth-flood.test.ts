/**
 * Issue 14 item 3: an unauthenticated flood must not turn into one fsync'd audit row per request, every
 * endpoint has a per-source rate limit, and a refused source stays refused.
 * Attack table: each row sends a flood from one loopback source and checks what reached the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { auditRows, loginBody, send, type RawRequest } from './client.js'

describe('failed-authentication floods', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer({ limits: { requestsPerMinute: 1_000_000 } })
  })
  afterAll(() => vault?.stop())

  const floods: [string, string, (i: number) => RawRequest][] = [
    [
      'forged bearer tokens',
      '127.0.1.1',
      (i) => ({
        path: '/api/v1/secrets?environment=dev',
        headers: { authorization: `Bearer forged.${i}.x` },
      }),
    ],
    [
      'an expired-looking JWT',
      '127.0.1.2',
      () => ({ path: '/api/v1/whoami', headers: { authorization: 'Bearer a.b.c' } }),
    ],
    ['failed logins with unknown client ids', '127.0.1.3', (i) => loginBody(`vc_nobody${i}`, 'wrong')],
  ]

  it.each(floods)(
    'coalesces a flood of %s from one source into at most one row a minute',
    async (_attack, from, make) => {
      const before = (await auditRows(vault)).filter((row) => row.ip === from).length
      for (let i = 0; i < 150; i++) {
        const answer = await send(vault, { ...make(i), from })
        expect([400, 401]).toContain(answer.status)
      }
      const written = (await auditRows(vault)).filter((row) => row.ip === from)
      // the flood may straddle one minute boundary: two rows at most, never 150
      expect(written.length - before).toBeGreaterThanOrEqual(1)
      expect(written.length - before).toBeLessThanOrEqual(2)
    },
  )

  it('writes the count of coalesced failures when the log is flushed (nothing is lost, only merged)', async () => {
    const from = '127.0.1.4'
    for (let i = 0; i < 20; i++)
      await send(vault, { path: '/api/v1/whoami', from, headers: { authorization: 'Bearer x.y.z' } })
    await vault.running.context.failedAuth.flush(Infinity)
    const rows = (await auditRows(vault)).filter((row) => row.ip === from)
    const counted = rows.reduce((sum, row) => {
      const summary = /^(\d+) more like/.exec(row.detail ?? '')
      const earlier = /\(\+(\d+) coalesced earlier\)/.exec(row.detail ?? '')
      return sum + (summary ? Number(summary[1]) : 1) + (earlier ? Number(earlier[1]) : 0)
    }, 0)
    expect(rows.length).toBeLessThanOrEqual(3)
    expect(counted).toBe(20)
  })
})

describe('per-source rate limit on every endpoint', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer({ limits: { requestsPerMinute: 10 } })
  })
  afterAll(() => vault?.stop())

  it.each([
    ['health', '127.0.2.1', { path: '/api/v1/health' }],
    [
      'bad bearer on secrets',
      '127.0.2.2',
      { path: '/api/v1/secrets', headers: { authorization: 'Bearer a.b.c' } },
    ],
    ['openapi document', '127.0.2.3', { path: '/api/v1/openapi.json' }],
    ['unknown path', '127.0.2.4', { path: '/api/v1/nothing' }],
  ] as [string, string, RawRequest][])(
    'refuses the 11th request a minute to %s from one source with 429 and writes no row for it',
    async (_endpoint, from, raw) => {
      for (let i = 0; i < 10; i++) expect((await send(vault, { ...raw, from })).status).not.toBe(429)
      const rowsBefore = (await auditRows(vault)).length
      const refused = await send(vault, { ...raw, from })
      expect(refused.status).toBe(429)
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
      expect((await auditRows(vault)).length).toBe(rowsBefore)
      expect((await send(vault, { path: '/api/v1/health', from: '127.0.2.99' })).status).toBe(200)
    },
  )
})
