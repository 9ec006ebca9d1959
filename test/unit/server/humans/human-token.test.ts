/**
 * Bearer tokens for humans (src/server/humans/human-token.ts) on a real, initialised vault. The token is
 * decoded with `jose` (the oracle for its claims); requests carry it as a real Authorization header.
 * Tokens signed with the vault's own secret but with claims that do not hold together (a machine's
 * subject, a project other than `*`, another user's name on this session, a console session's id)
 * are refused with 401, as is the token of a session that was signed out.
 */
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiRequest } from '../../../../src/server/http/api.js'
import {
  callOfRequest,
  humanOfRequest,
  humanTokenProject,
  issueHumanToken,
  signOutRequest,
} from '../../../../src/server/humans/human-token.js'
import { signInHuman, SignInError } from '../../../../src/server/humans/session.js'
import { signAccessToken } from '../../../../src/server/tokens/tokens.js'
import { startVaultServer, type TestVault } from '../../../helpers/vault-server.js'

const password = 'correct horse battery staple'
let vault: TestVault
let addresses = 0
const context = () => vault.running.context
const attempt = () => ({ username: 'admin', password, clientAddress: `198.51.100.${++addresses}` })

beforeAll(async () => {
  vault = await startVaultServer({})
}, 60_000)
afterAll(() => vault?.stop())

function request(token: string): ApiRequest {
  return {
    method: 'GET',
    url: new URL('http://vault.test/api/v1/admin/users'),
    headers: { authorization: `Bearer ${token}` },
    params: {},
    origin: { ip: '198.51.100.200', requestId: 'req-1' },
    body: async () => Buffer.alloc(0),
  }
}

const status = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error as { status?: number }).status ?? String(error),
  )

describe('issueHumanToken and humanOfRequest', () => {
  it('answers a bearer whose claims name the user, the `*` project and the CLI session', async () => {
    const issued = await issueHumanToken(context(), attempt())
    expect(issued.token_type).toBe('Bearer')
    expect(issued.user).toEqual({ username: 'admin', role: 'admin' })
    const claims = decodeJwt(issued.access_token)
    expect(claims.sub).toBe('user:admin')
    expect(claims.pid).toBe(humanTokenProject)
    expect(claims.exp! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(issued.expires_in + 1)
    expect(issued.expires_in).toBeGreaterThan(0)
    expect(issued.expires_in).toBeLessThanOrEqual(context().timings.session.maxSeconds)
    const human = await humanOfRequest(context(), request(issued.access_token))
    expect(human.id).toBe(claims.jti)
    expect(human.username).toBe('admin')
    const call = await callOfRequest(context(), request(issued.access_token))
    expect(call.origin).toEqual({ requestId: 'req-1', ip: '198.51.100.200' })
  })

  it('refuses tokens whose claims do not hold together, though signed with the vault’s secret', async () => {
    const cli = decodeJwt((await issueHumanToken(context(), attempt())).access_token)
    const consoleSession = await signInHuman(context(), attempt())
    const forge = async (identityId: string, projectId: string, jti: string) =>
      (await signAccessToken(context().jwtSecret, { identityId, projectId, jti }, 600)).token
    const forged = [
      await forge('user:admin', vault.projectId, cli.jti!),
      await forge('user:someone-else', humanTokenProject, cli.jti!),
      await forge('some-identity-id', humanTokenProject, cli.jti!),
      await forge('user:admin', humanTokenProject, consoleSession.id),
      await forge('user:admin', humanTokenProject, 'A'.repeat(43)),
    ]
    for (const token of forged) expect(await status(humanOfRequest(context(), request(token)))).toBe(401)
    expect(await status(humanOfRequest(context(), request('not.a.jwt')))).toBe(401)
  })

  it('refuses a machine’s own token on the admin API', async () => {
    const token = await vault.token(vault.adminCredentials)
    expect(await status(humanOfRequest(context(), request(token)))).toBe(401)
  })

  it('ends the token with sign-out; signing out again is a 401', async () => {
    const issued = await issueHumanToken(context(), attempt())
    await signOutRequest(context(), request(issued.access_token))
    expect(await status(humanOfRequest(context(), request(issued.access_token)))).toBe(401)
    expect(await status(signOutRequest(context(), request(issued.access_token)))).toBe(401)
  })

  it('issues nothing for a wrong password', async () => {
    await expect(issueHumanToken(context(), { ...attempt(), password: 'wrong' })).rejects.toBeInstanceOf(
      SignInError,
    )
  })
})
