import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import { parseAddress, resolveProxyConfig, type ProxySettings } from '../../../src/proxy/config.js'
import { settingsFromEnv, settingsToEnv } from '../../../src/proxy/settings.js'

describe('parseAddress', () => {
  it.each([
    ['unix:///var/run/docker.sock', { kind: 'unix', path: '/var/run/docker.sock', mode: 0o660 }],
    ['unix:///run/p.sock?mode=0600', { kind: 'unix', path: '/run/p.sock', mode: 0o600 }],
    ['tcp://:2375', { kind: 'tcp', host: '', port: 2375 }],
    ['tcp://0.0.0.0:2375', { kind: 'tcp', host: '0.0.0.0', port: 2375 }],
    ['tcp://127.0.0.1:0', { kind: 'tcp', host: '127.0.0.1', port: 0 }],
    ['tcp://[::1]:2375', { kind: 'tcp', host: '::1', port: 2375 }],
    ['tcp://socket-proxy:2375', { kind: 'tcp', host: 'socket-proxy', port: 2375 }],
  ])('%s', (address, expected) => {
    expect(parseAddress(address, 'X')).toEqual(expected)
  })

  it.each([
    ['http://x:1'],
    ['tcp://x'],
    ['tcp://x:99999'],
    ['unix://relative'],
    ['2375'],
    ['unix:///p?mode=999'],
  ])('refuses %s', (address) => {
    expect(() => parseAddress(address, 'PROXY_FRONTEND_ADDR')).toThrow(
      /PROXY_FRONTEND_ADDR .* is not an address/,
    )
  })
})

describe('resolveProxyConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-config-'))
  const rulesFile = join(dir, 'bad.rules')
  writeFileSync(rulesFile, '# ok\nGET /a\n\nGET /b(\n')

  it('uses the seed defaults: default rules after the built-ins, level 6, tcp://:2375', () => {
    const config = resolveProxyConfig({})
    expect(config.backend).toEqual({ kind: 'unix', path: '/var/run/docker.sock', mode: 0o660 })
    expect(config.frontends).toEqual([{ kind: 'tcp', host: '', port: 2375 }])
    expect(config.logLevel).toBe(6)
    expect(config.ruleSets.everyone!.rules.map((rule) => rule.source)).toEqual([
      ...Array(6).fill('built-in'),
      ...Array(7).fill('default rules'),
    ])
  })

  it('turns the built-ins off and uses configured rules instead of the defaults', () => {
    const config = resolveProxyConfig({ noBuiltinRules: true, rules: 'GET /x' })
    expect(config.ruleSets.everyone!.rules.map((rule) => rule.pattern)).toEqual(['/x'])
  })

  it.each<[ProxySettings, RegExp]>([
    [{ backendAddr: 'tcp://nope' }, /PROXY_BACKEND_ADDR "tcp:\/\/nope" is not an address/],
    [{ frontendAddrs: ['tcp://:1', 'bad'] }, /PROXY_FRONTEND_ADDR "bad"/],
    [{ logLevel: '8' }, /PROXY_LOG_LEVEL "8" is not an integer from 0 to 7/],
    [{ logLevel: 'debug' }, /PROXY_LOG_LEVEL/],
    [{ logFormat: 'xml' }, /PROXY_LOG_FORMAT/],
    [{ rules: 'GET /a\nFETCH' }, /PROXY_RULES line 2: "FETCH" has no pattern/],
    [{ rules: 'GET %NOPE%' }, /PROXY_RULES line 1: unknown variable %NOPE%/],
    [{ rulesFile }, /rules file .*bad.rules line 4: the pattern does not compile/],
    [{ rulesFile: join(dir, 'missing') }, /PROXY_RULES_FILE ".*missing" cannot be read: ENOENT/],
    [{ preset: 'nope' }, /there is no preset "nope"/],
    [
      { frontendTlsCert: rulesFile },
      /PROXY_FRONTEND_TLS_CERT and PROXY_FRONTEND_TLS_KEY must be given together/,
    ],
    [{ frontendTlsCa: rulesFile }, /needs PROXY_FRONTEND_TLS_CERT/],
    [{ backendTlsCa: rulesFile }, /need a tcp:\/\/ PROXY_BACKEND_ADDR/],
    [{ shutdownGrace: 'soon' }, /PROXY_SHUTDOWN_GRACE/],
  ])('stops on %j', (settings, message) => {
    expect(() => resolveProxyConfig(settings)).toThrow(UsageError)
    expect(() => resolveProxyConfig(settings)).toThrow(message)
  })
})

describe('settings and PROXY_* variables', () => {
  it('round-trips through the environment', () => {
    const settings: ProxySettings = {
      backendAddr: 'unix:///s',
      frontendAddrs: ['tcp://:1', 'unix:///p'],
      rules: 'GET /a\nGET /b',
      noBuiltinRules: true,
      logLevel: '7',
    }
    expect(settingsFromEnv(settingsToEnv(settings))).toEqual(settings)
  })

  it('reads the seed variable names', () => {
    expect(
      settingsFromEnv({
        PROXY_BACKEND_ADDR: 'unix:///x',
        PROXY_LOG_LEVEL: '4',
        PROXY_NO_BUILTIN_RULES: 'false',
      }),
    ).toEqual({
      backendAddr: 'unix:///x',
      logLevel: '4',
      noBuiltinRules: false,
    })
  })
})
