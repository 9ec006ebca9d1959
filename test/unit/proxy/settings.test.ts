/**
 * The proxy's settings table: documented row for row in examples/proxy/README.md, and read the same way
 * from the environment and the command line (a list variable arrives as a list: the example stack's
 * crash was PROXY_FRONTEND_ADDR arriving as a string).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import { resolveProxyConfig } from '../../../src/proxy/config.js'
import { proxySettingSpecs, settingsFromArgs, settingsFromEnv } from '../../../src/proxy/settings.js'
import ProxyServe from '../../../src/commands/proxy/serve.js'

const readme = readFileSync(new URL('../../../examples/proxy/README.md', import.meta.url), 'utf8')

describe('proxy settings', () => {
  it('documents every setting in the README table, and nothing else', () => {
    const rows = [...readme.matchAll(/^\| `(PROXY_[A-Z_]+)` \| `--([a-z-]+)` \| (?:`([^`]*)`|—) \|/gm)]
    expect(rows.map((row) => [row[1], row[2], row[3]])).toEqual(
      proxySettingSpecs.map((spec) => [spec.env, spec.flag, spec.default]),
    )
    const mentioned = new Set(readme.match(/PROXY_[A-Z_]+[A-Z]/g))
    expect([...mentioned].filter((name) => !proxySettingSpecs.some((spec) => spec.env === name))).toEqual([])
  })

  it('gives the serve command exactly one flag per setting', () => {
    expect(Object.keys(ProxyServe.flags).sort()).toEqual(proxySettingSpecs.map((spec) => spec.flag).sort())
  })

  it('reads a list variable as a list, and the configuration accepts it', () => {
    const settings = settingsFromEnv({ PROXY_FRONTEND_ADDR: 'tcp://127.0.0.1:1, unix:///run/p.sock' })
    expect(settings.frontendAddrs).toEqual(['tcp://127.0.0.1:1', 'unix:///run/p.sock'])
    expect(resolveProxyConfig(settings).frontends).toHaveLength(2)
  })

  it.each([
    [
      ['--frontend-addr', 'tcp://:1', '--frontend-addr=tcp://:2,tcp://:3'],
      {},
      { frontendAddrs: ['tcp://:1', 'tcp://:2', 'tcp://:3'] },
    ],
    [
      ['--log-level', '7'],
      { PROXY_LOG_LEVEL: '3', PROXY_PRESET: 'read-only' },
      { logLevel: '7', preset: 'read-only' },
    ],
    [['--no-builtin-rules'], {}, { noBuiltinRules: true }],
    [
      [],
      { PROXY_NO_BUILTIN_RULES: 'yes', PROXY_MAX_CONNECTIONS: '5' },
      { noBuiltinRules: true, maxConnections: '5' },
    ],
    [['--rules', 'GET /a\nGET /b'], {}, { rules: 'GET /a\nGET /b' }],
  ])('reads %j over %j', (args, env, expected) => {
    expect(settingsFromArgs(args, env)).toEqual(expected)
  })

  it.each([
    [['--bogus'], /unexpected argument --bogus/],
    [['serve'], /unexpected argument serve/],
    [['--log-level'], /--log-level needs a value/],
    [['--preset', 'nope'], /--preset "nope" is not one of/],
  ])('refuses %j', (args, message) => {
    expect(() => settingsFromArgs(args, {})).toThrow(UsageError)
    expect(() => settingsFromArgs(args, {})).toThrow(message)
  })

  it('refuses a connection cap that is not a positive integer', () => {
    expect(() => resolveProxyConfig({ maxConnections: '0' })).toThrow(/PROXY_MAX_CONNECTIONS "0"/)
  })
})

describe('file path settings (PROXY_COMPOSE_POLICY)', () => {
  it('splits the variable as compose splits COMPOSE_FILE: at COMPOSE_PATH_SEPARATOR, default ":"', () => {
    const paths = '/srv/my stack/compose.yaml:/srv/a,b/override.yaml'
    expect(settingsFromEnv({ PROXY_COMPOSE_POLICY: paths }).composePolicy).toEqual([
      '/srv/my stack/compose.yaml',
      '/srv/a,b/override.yaml',
    ])
    expect(
      settingsFromEnv({ PROXY_COMPOSE_POLICY: 'c:/a b.yaml;d.yaml', COMPOSE_PATH_SEPARATOR: ';' })
        .composePolicy,
    ).toEqual(['c:/a b.yaml', 'd.yaml'])
    // the old comma form arrives as one entry (compose-policy/policy-files.ts reads it)
    expect(settingsFromEnv({ PROXY_COMPOSE_POLICY: 'a.yaml,b.yaml' }).composePolicy).toEqual([
      'a.yaml,b.yaml',
    ])
  })

  it('takes one path per flag, repeatable, over the variable', () => {
    expect(
      settingsFromArgs(['--compose-policy', 'my stack/compose.yaml', '--compose-policy=a,b.yaml'], {
        PROXY_COMPOSE_POLICY: 'ignored.yaml',
      }).composePolicy,
    ).toEqual(['my stack/compose.yaml', 'a,b.yaml'])
  })
})
