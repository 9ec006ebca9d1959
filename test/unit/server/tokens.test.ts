import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { signAccessToken, verifyAccessToken, verifyAccessTokenCached } from '../../../src/server/tokens.js'

const secret = Buffer.alloc(32, 3)
const subject = { identityId: 'identity-1', projectId: 'project-1' }
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('access tokens', () => {
  const { token, claims } = signAccessToken(secret, subject, 900)

  it('verifies its own token', () => {
    expect(verifyAccessToken(secret, token)).toEqual(claims)
    expect(claims.exp - claims.iat).toBe(900)
  })

  const [head, payload, signature] = token.split('.') as [string, string, string]
  const resign = (header: string, body: string, algorithm = 'sha256', key = secret) =>
    `${header}.${body}.${createHmac(algorithm, key).update(`${header}.${body}`).digest('base64url')}`
  it.each([
    ['expired', signAccessToken(secret, subject, -1).token],
    ['tampered payload', `${head}.${encode({ ...claims, pid: 'other' })}.${signature}`],
    ['alg none', `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`],
    ['alg none with a signature', resign(encode({ alg: 'none' }), payload)],
    ['HS512', resign(encode({ alg: 'HS512' }), payload, 'sha512')],
    ['wrong key', resign(head, payload, 'sha256', Buffer.alloc(32, 4))],
    ['two parts', `${head}.${payload}`],
    ['garbage header', `!!!.${payload}.${signature}`],
    ['missing claims', resign(head, encode({ exp: claims.exp }))],
  ])('rejects a token that is %s', (_label, candidate) => {
    expect(verifyAccessToken(secret, candidate)).toBeNull()
  })

  it('remembers a verified token only until it expires and only under its own key', () => {
    const now = Date.now()
    const fresh = signAccessToken(secret, subject, 60, now)
    expect(verifyAccessTokenCached(secret, fresh.token, now)).toEqual(fresh.claims)
    expect(verifyAccessTokenCached(secret, fresh.token, now + 1000)).toEqual(fresh.claims)
    expect(verifyAccessTokenCached(Buffer.alloc(32, 4), fresh.token, now)).toBeNull()
    expect(verifyAccessTokenCached(secret, fresh.token, now + 61_000)).toBeNull()
  })

  it.each([
    ['expired', signAccessToken(secret, subject, -1).token],
    ['tampered payload', `${head}.${encode({ ...claims, pid: 'other' })}.${signature}`],
    ['alg none', `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`],
  ])('rejects through its cache a token that is %s', (_label, candidate) => {
    expect(verifyAccessTokenCached(secret, token)).toEqual(claims)
    expect(verifyAccessTokenCached(secret, candidate)).toBeNull()
  })
})
