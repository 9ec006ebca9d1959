import { describe, expect, it } from 'vitest'
import { buildChildEnvironment } from '../../../src/process/child-env.js'
import { HostVariableError } from '../../../src/process/host-variables.js'

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
    const env = buildChildEnvironment(
      host,
      { ...secrets, VAULT_CLIENT_SECRET: 'from-vault' },
      { allowEnv: ['VAULT_CLIENT_SECRET'] },
    )
    expect(env).not.toHaveProperty('VAULT_CLIENT_SECRET')
    expect(env).not.toHaveProperty('VAULT_TOKEN')
    expect(env).toMatchObject({ PATH: '/bin', ONLY_VAULT: 'v', VAULT_CLIENT_ID: 'cid' })
  })

  it.each([
    ['DOCKER_HOST', 'tcp://attacker:2375'],
    ['BASH_ENV', '/tmp/x.sh'],
    ['NODE_OPTIONS', '--require /tmp/x.js'],
    ['LD_PRELOAD', '/tmp/x.so'],
    ['PATH', '/tmp/evil:/bin'],
  ])('refuses a secret %s (it controls the host), also when the host is preferred', (name, value) => {
    for (const preferHost of [false, true]) {
      expect(() => buildChildEnvironment(host, { ...secrets, [name]: value }, { preferHost })).toThrow(
        HostVariableError,
      )
    }
  })

  it('sets such a secret only when --allow-env names it', () => {
    const env = buildChildEnvironment(
      host,
      { DOCKER_HOST: 'tcp://engine:2375' },
      { allowEnv: ['DOCKER_HOST'] },
    )
    expect(env.DOCKER_HOST).toBe('tcp://engine:2375')
    expect(() =>
      buildChildEnvironment(host, { DOCKER_HOST: 'x', BASH_ENV: 'y' }, { allowEnv: ['DOCKER_HOST'] }),
    ).toThrow(/refusing to set BASH_ENV from the vault/)
  })
})
