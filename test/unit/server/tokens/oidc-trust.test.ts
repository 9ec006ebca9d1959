import { describe, expect, it } from 'vitest'
import {
  decodeOidcTrust,
  encodeOidcTrust,
  issuerProblem,
  parseOidcTrust,
} from '../../../../src/server/tokens/oidc-trust.js'

const base = {
  issuer: 'https://token.actions.githubusercontent.com',
  audience: 'https://vault.test',
  subject: 'repo:a/b:*',
}

describe('OIDC trust', () => {
  it.each([
    ['https://token.actions.githubusercontent.com', undefined],
    ['https://gitlab.com', undefined],
    ['https://git.example/api/actions', undefined],
    ['http://127.0.0.1:8080', undefined],
    ['http://[::1]:8080/issuer', undefined],
    ['http://127.0.0.1', /https/],
    ['http://localhost:8080', /https/],
    ['http://127.0.0.2:8080', /https/],
    ['http://127.0.0.1:0', /https/],
    ['http://10.0.0.1:8080', /https/],
    ['http://issuer.example', /https/],
    ['file:///etc/passwd', /https/],
    ['https://user:pw@issuer.example', /credentials/],
    ['https://issuer.example/?a=b', /query/],
    ['https://issuer.example/#x', /fragment/],
    ['https://issuer.example/ x', /spaces/],
    ['not a url', /spaces|URL/],
  ])('issuer %s', (issuer, problem) => {
    if (problem) expect(issuerProblem(issuer)).toMatch(problem)
    else expect(issuerProblem(issuer)).toBeUndefined()
  })

  it('keeps claims as a list, so Object.prototype names are plain names', () => {
    const trust = parseOidcTrust({ ...base, claims: ['__proto__=x', 'constructor=y', 'environment=prod=1'] })
    expect(trust.claims).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['environment', 'prod=1'],
    ])
    expect(({} as Record<string, unknown>).x).toBeUndefined()
    expect(decodeOidcTrust(encodeOidcTrust(trust))).toEqual(trust)
  })

  it.each([
    [{ ...base, issuer: undefined }, /--oidc-issuer is required/],
    [{ ...base, audience: '' }, /--oidc-audience is required/],
    [{ ...base, subject: '*' }, /every subject/],
    [{ ...base, subject: 'repo:a\u0000:b' }, /control/],
    [{ ...base, claims: ['novalue'] }, /key=value/],
    [{ ...base, claims: ['bad key=x'] }, /key=value/],
    [{ ...base, claims: ['sub=x'] }, /own check/],
    [{ ...base, claims: ['a=1', 'a=2'] }, /twice/],
    [{ ...base, claims: ['a=\u001b[31m'] }, /control/],
  ])('refuses %j', (input, problem) => {
    expect(() => parseOidcTrust(input)).toThrow(problem)
  })

  it('reads no trust from a NULL column', () => {
    expect(decodeOidcTrust(null)).toBeUndefined()
  })
})
