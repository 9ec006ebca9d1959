/**
 * Issue 14 item 4: X-Forwarded-For is the client's own writing. It is believed only when the TCP peer
 * is a trusted proxy, and then only its right-most untrusted hop counts. Each row sends a login with a
 * wrong secret from one loopback address with a forged header and checks the address that the audit
 * log recorded (and so the address every rate limit keys on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { auditRows, loginBody, send } from './client.js'

const proxy = '127.0.3.9'
const innerProxy = '127.0.3.10'

describe('trusted proxies and X-Forwarded-For', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer({
      trustedProxies: [`${proxy}/32`, `${innerProxy}/32`],
      limits: { tokenRequestsPerMinute: 3 },
    })
  })
  afterAll(() => vault?.stop())

  async function recordedAddress(from: string, forwardedFor: string, marker: string): Promise<string | null> {
    const raw = loginBody(`vc_${marker}`, 'wrong')
    await send(vault, { ...raw, from, headers: { ...raw.headers, 'x-forwarded-for': forwardedFor } })
    const row = (await auditRows(vault)).find((event) => event.actor === `client:vc_${marker}`)
    return row?.ip ?? null
  }

  it.each([
    ['a forged header from an untrusted peer is ignored', '127.0.3.2', '6.6.6.6', 'untrusted', '127.0.3.2'],
    [
      'a forged left-most hop behind a trusted proxy is ignored (the proxy-appended hop counts)',
      proxy,
      '6.6.6.6, 127.0.3.7',
      'leftmost',
      '127.0.3.7',
    ],
    [
      'a chain of trusted proxies is skipped from the right',
      proxy,
      `6.6.6.6, 127.0.3.8, ${innerProxy}`,
      'chain',
      '127.0.3.8',
    ],
    ['a non-address hop falls back to the peer', proxy, 'not-an-address', 'junk', proxy],
  ])('%s', async (_attack, from, forwardedFor, marker, expected) => {
    expect(await recordedAddress(from, forwardedFor, marker)).toBe(expected)
  })

  it('rotating the forged left-most hop does not escape the token endpoint rate limit', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const raw = loginBody('vc_rotator', 'wrong')
      const answer = await send(vault, {
        ...raw,
        from: proxy,
        headers: { ...raw.headers, 'x-forwarded-for': `10.9.${i}.1, 127.0.3.20` },
      })
      statuses.push(answer.status)
    }
    expect(statuses.slice(3)).toEqual([429, 429, 429])
    // another real client behind the same proxy is not affected
    const other = loginBody('vc_other', 'wrong')
    const answer = await send(vault, {
      ...other,
      from: proxy,
      headers: { ...other.headers, 'x-forwarded-for': '127.0.3.21' },
    })
    expect(answer.status).toBe(401)
  })
})
