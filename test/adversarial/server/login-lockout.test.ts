/**
 * Issue 14 item 9: wrong secrets must not become a weapon. Failed logins slow down only the (client
 * id, source) pair that sent them, with a growing delay, and an unknown client id is answered exactly
 * like a known one with a wrong secret, so the answers never tell which ids exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { loginBody, send } from './client.js'

describe('login lockout', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer()
  })
  afterAll(() => vault?.stop())

  it('keeps the deployment identity working from its own host while an attacker hammers its id', async () => {
    const { clientId, clientSecret } = vault.deploymentCredentials
    for (let i = 0; i < 8; i++) await send(vault, { ...loginBody(clientId, 'wrong'), from: '127.0.4.66' })
    const attacker = await send(vault, { ...loginBody(clientId, clientSecret), from: '127.0.4.66' })
    expect(attacker.status).toBe(429)
    const deploy = await send(vault, { ...loginBody(clientId, clientSecret), from: '127.0.4.10' })
    expect(deploy.status).toBe(200)
  })

  it('answers an unknown id and a wrong secret with the same status and body at every step', async () => {
    const known = await vault.createIdentity('probe-target', 'dev=read')
    const statuses: number[] = []
    // five failures each, then one attempt right after the fifth (inside its 1 s delay)
    for (let i = 0; i < 6; i++) {
      const unknown = await send(vault, { ...loginBody('vc_doesnotexist', 'wrong'), from: '127.0.4.20' })
      const wrong = await send(vault, { ...loginBody(known.clientId, 'wrong'), from: '127.0.4.21' })
      expect(unknown.status).toBe(wrong.status)
      expect(unknown.body).toBe(wrong.body)
      expect(unknown.headers['retry-after']).toBe(wrong.headers['retry-after'])
      statuses.push(wrong.status)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
  })

  it('makes the delay grow with further failures instead of a fixed lock', async () => {
    const from = '127.0.4.30'
    const delays: number[] = []
    for (let i = 0; i < 5; i++) await send(vault, { ...loginBody('vc_grow', 'wrong'), from })
    // the fifth failure earned a 1 s delay; a refused attempt does not reset it
    const refused = await send(vault, { ...loginBody('vc_grow', 'wrong'), from })
    expect(refused.status).toBe(429)
    delays.push(Number(refused.headers['retry-after']))
    expect(delays[0]).toBeGreaterThan(0)
    const { loginThrottle } = vault.running.context
    const pair = { clientId: 'vc_grow', ip: from }
    const later = Date.now() + 10_000
    expect(loginThrottle.failed(pair, later)).toBe(2)
    expect(loginThrottle.failed(pair, later)).toBe(4)
  })

  it('lets no more than the threshold of parallel guesses through to the secret check', async () => {
    const { clientId } = vault.deploymentCredentials
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => send(vault, { ...loginBody(clientId, 'guess'), from: '127.0.4.40' })),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 401)).toHaveLength(5)
    expect(statuses.filter((status) => status === 429)).toHaveLength(25)
  })
})
