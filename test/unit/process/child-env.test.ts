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

describe("buildChildEnvironment and the vault server's keys on the host", () => {
  const host = { PATH: '/bin', ENCRYPTION_KEY: 'canary-ek', JWT_SECRET: 'canary-jwt', DB_URL: 'canary-db' }

  it('never passes the host ENCRYPTION_KEY, JWT_SECRET or DB_URL on', () => {
    const env = buildChildEnvironment(host, { APP: 'v' }, { preferHost: true })
    expect(JSON.stringify(env)).not.toContain('canary')
    expect(env).toMatchObject({ PATH: '/bin', APP: 'v' })
  })

  it('passes a vault secret of the same name (it comes from the vault), also when the host is preferred', () => {
    for (const preferHost of [false, true]) {
      const env = buildChildEnvironment(host, { ENCRYPTION_KEY: 'app-key' }, { preferHost })
      expect(env.ENCRYPTION_KEY).toBe('app-key')
      expect(env).not.toHaveProperty('JWT_SECRET')
    }
  })

  it('passes the host value that --allow-env names, and only that one', () => {
    const env = buildChildEnvironment(host, {}, { allowEnv: ['JWT_SECRET'] })
    expect(env.JWT_SECRET).toBe('canary-jwt')
    expect(env).not.toHaveProperty('ENCRYPTION_KEY')
    expect(env).not.toHaveProperty('DB_URL')
  })

  it('keeps __proto__ and constructor of the host as plain names', () => {
    const hostile = JSON.parse('{"__proto__": "x", "constructor": "y", "PATH": "/bin"}') as NodeJS.ProcessEnv
    const env = buildChildEnvironment(hostile, {})
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype)
    expect(Object.hasOwn(env, '__proto__')).toBe(true)
    expect(env.constructor).toBe('y')
  })
})
