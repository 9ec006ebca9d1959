import { describe, expect, it } from 'vitest'
import { buildChildEnvironment } from '../../../src/process/child-env.js'

describe('buildChildEnvironment', () => {
  const host = {
    PATH: '/bin',
    SHARED: 'host',
    VAULT_CLIENT_SECRET: 'CANARY',
    VAULT_CLIENT_ID: 'cid',
    VAULT_TOKEN: 't',
  }
  const secrets = { SHARED: 'vault', ONLY_VAULT: 'v' }

  it.each([
    [false, 'vault'],
    [true, 'host'],
  ])('preferHost %s: SHARED is %s', (preferHost, expected) => {
    expect(buildChildEnvironment(host, secrets, { preferHost }).SHARED).toBe(expected)
  })

  it('never passes the client secret or a token, whatever their source', () => {
    const env = buildChildEnvironment(host, { ...secrets, VAULT_CLIENT_SECRET: 'from-vault' })
    expect(env).not.toHaveProperty('VAULT_CLIENT_SECRET')
    expect(env).not.toHaveProperty('VAULT_TOKEN')
    expect(env).toMatchObject({ PATH: '/bin', ONLY_VAULT: 'v', VAULT_CLIENT_ID: 'cid' })
  })
})
