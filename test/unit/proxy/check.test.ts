/** `vault proxy check` decisions, per client. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import { checkRequest, clientIdentity } from '../../../src/proxy/check.js'

const dir = mkdtempSync(join(tmpdir(), 'proxy-check-'))
const rulesFile = join(dir, 'clients.rules')
writeFileSync(
  rulesFile,
  '[dashboard]\nclient source 127.0.0.2\npreset monitoring\n[updater]\nclient cert CN=updater\npreset management\n',
)

describe('checkRequest', () => {
  it.each([
    [['source=127.0.0.2'], 'GET', '/v1.47/containers/db/json', 'allow', 'dashboard', true],
    [['source=127.0.0.2'], 'POST', '/v1.47/containers/db/stop', 'deny', 'dashboard', false],
    [['cert=CN=updater'], 'POST', '/v1.47/containers/db/stop', 'allow', 'updater', false],
    [['cert=CN=updater'], 'GET', '/v1.47/containers/db/json', 'allow', 'updater', false],
    [['source=127.0.0.9'], 'GET', '/_ping', 'deny', undefined, false],
    [['cert=CN=evil,CN=updater'], 'POST', '/v1.47/containers/db/stop', 'deny', undefined, false],
    [['cert=cn=evil,CN=updater'], 'POST', '/v1.47/containers/db/stop', 'deny', undefined, false],
    [['cert=cn=updater'], 'POST', '/v1.47/containers/db/stop', 'allow', 'updater', false],
  ] as const)('%j %s %s: %s by %s (env masked: %s)', (client, method, path, decision, ruleSet, envMasked) => {
    const result = checkRequest({ rulesFile }, method, path, { client })
    expect(result).toMatchObject({ decision, envMasked })
    expect(result.ruleSet).toBe(ruleSet)
  })

  it('names the client that no rule set takes', () => {
    expect(checkRequest({ rulesFile }, 'GET', '/_ping', { client: ['source=127.0.0.9'] }).reason).toBe(
      'no rule set for this client (source 127.0.0.9, frontend tcp://:2375)',
    )
  })

  it('asks who the client is when rule sets are per client', () => {
    expect(() => checkRequest({ rulesFile }, 'GET', '/_ping')).toThrow(UsageError)
  })

  it.each([
    ['/v1.47/containers/db/top', true],
    ['/v1.47/containers/db/json', true],
    ['/v1.47/containers/db/logs', false],
  ])('read-only: %s has its environment values masked: %s', (path, envMasked) => {
    expect(checkRequest({ preset: 'read-only' }, 'GET', path)).toMatchObject({ decision: 'allow', envMasked })
  })

  it('decides for everyone without --client when there are no selectors', () => {
    expect(checkRequest({ preset: 'read-only' }, 'GET', '/v1.47/containers/db/json')).toMatchObject({
      decision: 'allow',
      ruleSet: '*',
      envMasked: true,
    })
  })

  it.each([['source'], ['bogus=x'], ['cert=noequals'], ['cert=CN='], ['cert=1x=y'], ['cert=CN=a,,O=b']])(
    'refuses --client %s, as a client cert line would be refused',
    (option) => {
      expect(() => clientIdentity([option], {})).toThrow(UsageError)
    },
  )

  it('reads a subject as node:tls gives one: a repeated attribute is a list, whatever its case', () => {
    expect(clientIdentity(['cert=CN=a,OU=dev,ou=ops'], {}).certSubject).toEqual({
      CN: 'a',
      OU: ['dev', 'ops'],
    })
  })
})

describe('per-client settings at start-up', () => {
  it('refuses a client frontend that is not a PROXY_FRONTEND_ADDR', async () => {
    const { resolveProxyConfig } = await import('../../../src/proxy/config.js')
    const settings = {
      clients: 'frontend tcp://127.0.0.1:9 monitoring',
      frontendAddrs: ['tcp://127.0.0.1:8'],
    }
    expect(() => resolveProxyConfig(settings)).toThrow(
      '"client frontend tcp://127.0.0.1:9" is not a PROXY_FRONTEND_ADDR',
    )
    expect(
      resolveProxyConfig({ ...settings, frontendAddrs: ['tcp://127.0.0.1:9'] }).ruleSets.selectors,
    ).toHaveLength(1)
  })

  it('refuses PROXY_REDACT_ENV other than on or off', async () => {
    const { resolveProxyConfig } = await import('../../../src/proxy/config.js')
    expect(() => resolveProxyConfig({ redactEnv: 'yes' })).toThrow(
      'PROXY_REDACT_ENV "yes" is neither on nor off',
    )
  })
})
