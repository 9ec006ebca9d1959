import { describe, expect, it } from 'vitest'
import { proxyEnvironment, proxyMallocTunables } from '../../../src/proxy/launch.js'

describe('proxyEnvironment (the serving process environment)', () => {
  it('adds the malloc tunables and keeps every other variable', () => {
    const env = proxyEnvironment({ PATH: '/bin', PROXY_RULES: 'GET /_ping' })
    expect(env).toEqual({
      PATH: '/bin',
      PROXY_RULES: 'GET /_ping',
      GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=4194304',
    })
    expect(proxyMallocTunables).toEqual(['glibc.malloc.trim_threshold=4194304'])
  })

  it("keeps the user's own tunables first and adds the ones they did not name", () => {
    expect(proxyEnvironment({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=1' }).GLIBC_TUNABLES).toBe(
      'glibc.malloc.arena_max=1:glibc.malloc.trim_threshold=4194304',
    )
  })

  it('leaves a tunable the user set to their value', () => {
    const own = 'glibc.malloc.trim_threshold=131072:glibc.malloc.arena_max=2'
    expect(proxyEnvironment({ GLIBC_TUNABLES: own }).GLIBC_TUNABLES).toBe(own)
  })

  it('does not change the environment it is given', () => {
    const env = { GLIBC_TUNABLES: 'glibc.malloc.arena_max=1' }
    proxyEnvironment(env)
    expect(env).toEqual({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=1' })
  })
})
