/**
 * The rule variables. The per-variable tables are CetusGuard's own tests, case for case:
 * SOURCE: hectorm/cetusguard cetusguard/rule_test.go (TestDomainRegex ... TestApiPrefixLibpodPingRegex).
 */
import { describe, expect, it } from 'vitest'
import { compileRulePattern } from '../../../src/proxy/rule-pattern.js'
import { decide, parseRules } from '../../../src/proxy/rules.js'
import {
  cetusGuardVariableNames,
  expandVariables,
  ruleVariables,
  UnknownVariableError,
} from '../../../src/proxy/variables.js'

const matchesVariable = (name: string, input: string) => compileRulePattern(ruleVariables[name]!).test(input)
const matches = (pattern: string, path: string) => decide(parseRules(`GET ${pattern}`), 'GET', path).allowed

const digest = '09c731d73926315908778730f9e606864fb72f1523d5c1c81c02dc51563885ba'

/** CetusGuard's tables: variable, then input → wanted. */
const cetusGuardTables: [string, Record<string, boolean>][] = [
  [
    'DOMAIN',
    {
      '': false,
      l: true,
      localhost: true,
      '-localhost': false,
      'localhost-': false,
      'sub.example.test': true,
      'sub.-example.test': false,
      'sub.example-.test': false,
      '001.test': true,
      'xn--7o8h.test': true,
      'a.a.a.a.a.a.a': true,
      'a.a.a...a.a.a': false,
    },
  ],
  [
    'IPV4',
    {
      '': false,
      '0': false,
      '0.0': false,
      '0.0.0.0.0': false,
      '0.0.0.0': true,
      '255.255.255.255': true,
      '1111.0.0.0': false,
    },
  ],
  [
    'IPV6',
    {
      '': false,
      '::': false,
      '[]': false,
      '[::]': true,
      '[::1]': true,
      '[f:f:f:f:f:f:f:f]': true,
      '[f:f:f:f:f:f:f:x]': false,
      '[f:f:f:f:f:f:f:f:f]': false,
      '[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]': true,
    },
  ],
  [
    'HOST',
    {
      '': false,
      localhost: true,
      'localhost:': false,
      'localhost:2375': true,
      'localhost:aaaa': false,
      'sub.example.test': true,
      'sub.example.test:': false,
      'sub.example.test:2375': true,
      'sub.example.test:aaaa': false,
      '127.0.0.1': true,
      '127.0.0.1:': false,
      '127.0.0.1:2375': true,
      '127.0.0.1:aaaa': false,
      '[::1]': true,
      '[::1]:': false,
      '[::1]:2375': true,
      '[::1]:aaaa': false,
    },
  ],
  ['_OBJECT_ID', { '': false, '0123456789abcdef': true, '0123456789x': false }],
  [
    '_OBJECT_NAME',
    { '': false, x: false, x0: true, '0x': true, xx: true, 'xx_.-': true, '-xx': false, busybox: true },
  ],
  [
    'IMAGE_REFERENCE',
    {
      '': false,
      b: true,
      busybox: true,
      'busybox:': false,
      'busybox:l': true,
      'busybox:latest': true,
      'busybox:latest@': false,
      'busybox:latest@sha256': false,
      'busybox:latest@sha256:': false,
      'busybox:latest@sha256:x': false,
      'busybox:latest@sha256:09c731d73926315908778730f9e6068': false,
      'busybox:latest@sha256:09c731d73926315908778730f9e60686': true,
      [`busybox:latest@sha256:${digest}`]: true,
      [`busybox@sha256:${digest}`]: true,
      [`busybox@sha256-:${digest}`]: false,
      [`busybox@sha256-test:${digest}`]: true,
      [`busybox@sha256--test:${digest}`]: false,
      [`busybox@sha256-0test:${digest}`]: false,
      [`busybox@sha256-test0:${digest}`]: true,
      [`busybox@sha256_test:${digest}`]: true,
      [`busybox@sha256.test:${digest}`]: true,
      [`busybox@sha256+test:${digest}`]: true,
      'docker.io/busybox:latest': true,
      'docker.io/library/busybox:latest': true,
      'localhost:5000/library/busybox:latest': true,
      '127.0.0.1:5000/library/busybox:latest': true,
      '[::1]:5000/library/busybox:latest': true,
      '-busybox:latest': false,
      'busybox:-latest': false,
      'docker.io/-library/busybox:latest': false,
      'docker.io/foo/bar/busybox:latest': true,
      'docker.io/foo.bar/busybox:latest': true,
      'docker.io/foo..bar/busybox:latest': false,
      'docker.io/foo_bar/busybox:latest': true,
      'docker.io/foo__bar/busybox:latest': true,
      'docker.io/foo___bar/busybox:latest': false,
      'docker.io/foo-bar/busybox:latest': true,
      'docker.io/foo--bar/busybox:latest': true,
      'docker.io/foo---bar/busybox:latest': true,
    },
  ],
  [
    'API_PREFIX',
    {
      '': true,
      '/': false,
      '/v': false,
      '/v9': true,
      '/v99': true,
      '/v99.9': true,
      '/v99.99': true,
      '/v99.99.9': true,
      '/v99.99.99': true,
      '/9.9': false,
      '/v9.9/': false,
      '/v9.9.': false,
      '/v.9.9': false,
      '/v9..9': false,
      '/va.a': false,
    },
  ],
  [
    'API_PREFIX_PING',
    {
      '': false,
      '/': false,
      '/_ping': true,
      '/_ping/': false,
      '/_pong': false,
      _ping: false,
      '//_ping': false,
      '/v9.9/': false,
      '/v9.9/_ping': true,
      'v9.9/_ping': false,
    },
  ],
  [
    'API_PREFIX_LIBPOD',
    {
      '': false,
      '/': false,
      '/libpod': false,
      '/v/libpod': false,
      '/v9/libpod': true,
      '/v99.99.99/libpod': true,
    },
  ],
  [
    'API_PREFIX_LIBPOD_PING',
    {
      '': false,
      '/': false,
      '/_ping': false,
      '/libpod/_ping': false,
      '/v/libpod/_ping': false,
      '/v9.9/libpod/_ping': true,
      '/v9.9/libpod/_ping/': false,
      '/v9.9/libpod/_pong': false,
    },
  ],
]

describe("CetusGuard's variable tests (cetusguard/rule_test.go)", () => {
  for (const [name, table] of cetusGuardTables) {
    it.each(Object.entries(table))(`%${name}% on %j: %s`, (input, wanted) => {
      expect(matchesVariable(name, input)).toBe(wanted)
    })
  }
})

describe('the differences the issue named', () => {
  it.each([
    ['/x/%DOMAIN%', '/x/sub.example.test', true],
    ['/x/%IPV4%', '/x/10.0.0.1', true],
    ['/x/%IPV6%', '/x/[fe80::1%eth0]', true],
    ['/x/%HOST%', '/x/registry.test:5000', true],
    ['/x/%_OBJECT_ID%', '/x/abcDEF012', true],
    ['/x/%_OBJECT_NAME%', '/x/web-1', true],
    ['%API_PREFIX_LIBPOD%/containers/json', '/v4.0.0/libpod/containers/json', true],
    ['%API_PREFIX_LIBPOD_PING%', '/v5.1/libpod/_ping', true],
    ['%API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/json', '/containers/x/json', false],
    ['%API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/json', '/containers/a/json', true],
    ['%API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/json', '/containers/xy/json', true],
    ['%API_PREFIX_NETWORKS%/%NETWORK_ID_OR_NAME%', '/v1.41/networks/my net', true],
    ['%API_PREFIX_NETWORKS%/%NETWORK_ID_OR_NAME%', '/v1.41/networks/my/net', false],
    [String.raw`/\x{1F433}`, '/🐳', true],
    [String.raw`/\x{1F433}`, '/x', false],
  ])('%s on %s: %s', (pattern, path, wanted) => {
    expect(matches(pattern, path)).toBe(wanted)
  })
})

describe('the variable table', () => {
  it('holds every variable CetusGuard defines (the 71 names of `ruleVars` in cetusguard/rule.go)', () => {
    const names =
      'API_PREFIX API_PREFIX_AUTH API_PREFIX_BUILD API_PREFIX_COMMIT API_PREFIX_CONFIGS API_PREFIX_CONTAINERS API_PREFIX_DEBUG API_PREFIX_DISTRIBUTION API_PREFIX_EVENTS API_PREFIX_EXEC API_PREFIX_GRPC API_PREFIX_IMAGES API_PREFIX_INFO API_PREFIX_LIBPOD API_PREFIX_LIBPOD_BUILD API_PREFIX_LIBPOD_COMMIT API_PREFIX_LIBPOD_CONTAINERS API_PREFIX_LIBPOD_EVENTS API_PREFIX_LIBPOD_EXEC API_PREFIX_LIBPOD_GENERATE API_PREFIX_LIBPOD_IMAGES API_PREFIX_LIBPOD_INFO API_PREFIX_LIBPOD_MANIFESTS API_PREFIX_LIBPOD_NETWORKS API_PREFIX_LIBPOD_PING API_PREFIX_LIBPOD_PLAY API_PREFIX_LIBPOD_PODS API_PREFIX_LIBPOD_SECRETS API_PREFIX_LIBPOD_SYSTEM API_PREFIX_LIBPOD_VERSION API_PREFIX_LIBPOD_VOLUMES API_PREFIX_NETWORKS API_PREFIX_NODES API_PREFIX_PING API_PREFIX_PLUGINS API_PREFIX_SECRETS API_PREFIX_SERVICES API_PREFIX_SESSION API_PREFIX_SWARM API_PREFIX_SYSTEM API_PREFIX_TASKS API_PREFIX_VERSION API_PREFIX_VOLUMES CONTAINER_ID CONTAINER_ID_OR_NAME CONTAINER_NAME DOMAIN DOMAIN_OR_IP HOST IMAGE_COMPONENT IMAGE_DIGEST IMAGE_ID IMAGE_ID_OR_REFERENCE IMAGE_NAME IMAGE_REFERENCE IMAGE_TAG IP IPV4 IPV6 NETWORK_ID NETWORK_ID_OR_NAME NETWORK_NAME PLUGIN_ID PLUGIN_ID_OR_NAME PLUGIN_NAME VOLUME_ID VOLUME_ID_OR_NAME VOLUME_NAME _API_VERSION _OBJECT_ID _OBJECT_NAME'.split(
        ' ',
      )
    expect([...cetusGuardVariableNames]).toEqual(names)
    for (const name of names) expect(ruleVariables[name], name).toBeDefined()
  })

  it.each(Object.keys(ruleVariables))('%%%s%% is fully expanded and compiles alone and twice', (name) => {
    expect(ruleVariables[name]).not.toMatch(/%[A-Z_][A-Z0-9_]*%/)
    expect(() => parseRules(`GET /x/%${name}%\nGET %${name}%/%${name}%`)).not.toThrow()
  })

  it.each([
    ['%API_PREFIX_EXEC%', '/v1.41/exec', '/containers/web/exec'],
    ['%API_LIBPOD_PREFIX_CONTAINERS%', '/v4.0.0/libpod/containers', '/libpod/containers'],
    ['%API_LIBPOD_PREFIX_EXEC%', '/v4/libpod/exec', '/v4/libpod/containers/c/exec'],
    ['%IMAGE_REGISTRY_HOST%', '[::1]:5000', '-bad-'],
    ['%POD_ID_OR_NAME%', 'pod1', 'a/b'],
    ['%EXEC_ID%', 'a'.repeat(64), 'exec-1'],
  ])('%s matches %s, not %s', (variable, good, bad) => {
    expect(matches(variable, good)).toBe(true)
    expect(matches(variable, bad)).toBe(false)
  })
})

describe('expandVariables', () => {
  it('expands a custom table whose values refer to each other', () => {
    expect(expandVariables('%A%', { A: '%B%/a', B: 'b' })).toBe('b/a')
  })
  it.each([['%NOPE%'], ['/x/%LOWER_X%']])('refuses the unknown variable in %s', (pattern) => {
    expect(() => expandVariables(pattern)).toThrow(UnknownVariableError)
  })
  it('refuses a cycle', () => {
    expect(() => expandVariables('%A%', { A: '%B%', B: '%A%' })).toThrow(/cycle/)
  })
  it('leaves a literal % that is not a variable alone', () => {
    expect(expandVariables('/a%20b')).toBe('/a%20b')
  })
})
