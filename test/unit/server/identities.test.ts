import { describe, expect, it } from 'vitest'
import { parsePermissions } from '../../../src/server/identities.js'
import { backoffMs, signWebhook } from '../../../src/server/webhooks/webhooks.js'
import { createHmac } from 'node:crypto'

const environments = ['dev', 'staging', 'prod']

describe('permissions', () => {
  it.each([
    ['dev=read', { dev: ['read'] }],
    ['dev=read,write;prod=read', { dev: ['read', 'write'], prod: ['read'] }],
    ['*=read', { dev: ['read'], staging: ['read'], prod: ['read'] }],
    ['*=read;prod=admin', { dev: ['read'], staging: ['read'], prod: ['read', 'admin'] }],
  ])('parses %s', (text, expected) => {
    expect(parsePermissions(text, environments)).toEqual(expected)
  })

  it.each([
    ['dev=owner', /permission 'dev=owner' is invalid/],
    ['qa=read', /environment 'qa' does not exist/],
  ])('rejects %s', (text, message) => {
    expect(() => parsePermissions(text, environments)).toThrow(message)
  })
})

describe('webhook signing and backoff', () => {
  it('signs the timestamp and the exact body', () => {
    const body = '{"type":"secret.updated"}'
    const expected = createHmac('sha256', 'whsec_x').update(`1700000000.${body}`).digest('hex')
    expect(signWebhook('whsec_x', body, 1700000000)).toBe(`t=1700000000,v1=${expected}`)
    expect(signWebhook('whsec_x', `${body} `, 1700000000)).not.toBe(`t=1700000000,v1=${expected}`)
  })

  it.each([
    [0, 1000],
    [1, 2000],
    [5, 32000],
    [20, 600000],
  ])('waits after %i failed attempts %i ms', (attempts, delay) => {
    expect(backoffMs(attempts)).toBe(delay)
  })
})
