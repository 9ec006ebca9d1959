import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  signAccessToken,
  verifyAccessToken,
  verifyAccessTokenCached,
} from '../../../../src/server/tokens/tokens.js'

const secret = Buffer.alloc(32, 3)
const subject = { identityId: 'identity-1', projectId: 'project-1' }
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('access tokens (jose, HS256 pinned)', async () => {
  const { token, claims } = await signAccessToken(secret, subject, 900)
  const expired = (await signAccessToken(secret, subject, -1)).token

  it('verifies its own token', async () => {
    expect(await verifyAccessToken(secret, token)).toEqual(claims)
    expect(claims.exp - claims.iat).toBe(900)
  })

  const [head, payload, signature] = token.split('.') as [string, string, string]
  const resign = (header: string, body: string, algorithm = 'sha256', key = secret) =>
    `${header}.${body}.${createHmac(algorithm, key).update(`${header}.${body}`).digest('base64url')}`
  it.each([
    ['expired', expired],
    ['tampered payload', `${head}.${encode({ ...claims, pid: 'other' })}.${signature}`],
    ['alg none', `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`],
    ['alg none with a signature', resign(encode({ alg: 'none' }), payload)],
    ['HS512', resign(encode({ alg: 'HS512', typ: 'JWT' }), payload, 'sha512')],
    ['wrong key', resign(head, payload, 'sha256', Buffer.alloc(32, 4))],
    ['two parts', `${head}.${payload}`],
    ['garbage header', `!!!.${payload}.${signature}`],
    ['missing claims', resign(head, encode({ exp: claims.exp }))],
    ['without typ', resign(encode({ alg: 'HS256' }), payload)],
    [
      'with an unknown critical header',
      resign(encode({ alg: 'HS256', typ: 'JWT', crit: ['x'], x: 1 }), payload),
    ],
    ['with a string exp', resign(head, encode({ ...claims, exp: String(claims.exp) }))],
    ['without pid', resign(head, encode({ ...claims, pid: undefined }))],
    ['with padding in its signature', `${token}=`],
    [
      'with standard base64 in its payload',
      `${head}.${payload.replace(/-/g, '+').replace(/_/g, '/')}+.${signature}`,
    ],
  ])('rejects a token that is %s', async (_label, candidate) => {
    expect(await verifyAccessToken(secret, candidate)).toBeNull()
  })

  it('remembers a verified token only until it expires and only under its own key', async () => {
    const now = Date.now()
    const fresh = await signAccessToken(secret, subject, 60, now)
    expect(await verifyAccessTokenCached(secret, fresh.token, now)).toEqual(fresh.claims)
    expect(await verifyAccessTokenCached(secret, fresh.token, now + 1000)).toEqual(fresh.claims)
    expect(await verifyAccessTokenCached(Buffer.alloc(32, 4), fresh.token, now)).toBeNull()
    expect(await verifyAccessTokenCached(secret, fresh.token, now + 61_000)).toBeNull()
  })

  it.each([
    ['expired', expired],
    ['tampered payload', `${head}.${encode({ ...claims, pid: 'other' })}.${signature}`],
    ['alg none', `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`],
  ])('rejects through its cache a token that is %s', async (_label, candidate) => {
    expect(await verifyAccessTokenCached(secret, token)).toEqual(claims)
    expect(await verifyAccessTokenCached(secret, candidate)).toBeNull()
  })
})
