import { describe, expect, it } from 'vitest'
import { parseRules, decide } from '../../../src/proxy/rules.js'
import { expandVariables, ruleVariables, UnknownVariableError } from '../../../src/proxy/variables.js'

const matches = (pattern: string, path: string) => decide(parseRules(`GET ${pattern}`), 'GET', path).allowed

describe('prefix variables', () => {
  it.each([
    ['%API_PREFIX_EVENTS%', '/events', '/v1.41/events', '/v1.41/eventsx'],
    ['%API_PREFIX_CONTAINERS%', '/containers', '/v1.43/containers', '/v1.43/containers/json'],
    ['%API_PREFIX_IMAGES%', '/images', '/v1/images', '/vv1/images'],
    ['%API_PREFIX_VOLUMES%', '/volumes', '/v1.41/volumes', '/v1.41/volume'],
    ['%API_PREFIX_NETWORKS%', '/networks', '/v1.41/networks', '/v1.41./networks'],
    ['%API_PREFIX_BUILD%', '/build', '/v1.41/build', '/v1.x/build'],
    ['%API_PREFIX_EXEC%', '/containers/web/exec', '/v1.41/exec', '/containers/a/b/exec'],
    ['%API_PREFIX_PING%', '/_ping', '/v1.41/_ping', '/ping'],
    ['%API_PREFIX_VERSION%', '/version', '/v1.41/version', '/v1.41/versions'],
    ['%API_PREFIX_INFO%', '/info', '/v1.41/info', '/v1.41/info/x'],
    ['%API_PREFIX_SYSTEM%', '/system', '/v1.41/system', '/v1.41/systems'],
    ['%API_PREFIX_AUTH%', '/auth', '/v1.41/auth', '/v1.41/author'],
    ['%API_PREFIX_COMMIT%', '/commit', '/v1.41/commit', '/v1.41/commits'],
    ['%API_PREFIX_CONFIGS%', '/configs', '/v1.41/configs', '/v1.41/config'],
    ['%API_PREFIX_DISTRIBUTION%', '/distribution', '/v1.41/distribution', '/distributions'],
    ['%API_PREFIX_GRPC%', '/grpc', '/v1.41/grpc', '/grpcx'],
    ['%API_PREFIX_NODES%', '/nodes', '/v1.41/nodes', '/node'],
    ['%API_PREFIX_PLUGINS%', '/plugins', '/v1.41/plugins', '/plugin'],
    ['%API_PREFIX_SECRETS%', '/secrets', '/v1.41/secrets', '/secret'],
    ['%API_PREFIX_SERVICES%', '/services', '/v1.41/services', '/service'],
    ['%API_PREFIX_SESSION%', '/session', '/v1.41/session', '/sessions'],
    ['%API_PREFIX_SWARM%', '/swarm', '/v1.41/swarm', '/swarms'],
    ['%API_PREFIX_TASKS%', '/tasks', '/v1.41/tasks', '/task'],
    ['%API_PREFIX_DEBUG%', '/debug', '/v1.41/debug', '/debugs'],
    [
      '%API_LIBPOD_PREFIX_CONTAINERS%',
      '/v4.0.0/libpod/containers',
      '/v5/libpod/containers',
      '/libpod/containers',
    ],
    ['%API_LIBPOD_PREFIX_PODS%', '/v4.0.0/libpod/pods', '/v4/libpod/pods', '/pods'],
    ['%API_LIBPOD_PREFIX_EXEC%', '/v4.0.0/libpod/exec', '/v4/libpod/containers/c/exec', '/v4/exec'],
  ])('%s matches %s and %s, not %s', (variable, unversioned, versioned, other) => {
    expect(matches(variable, unversioned)).toBe(true)
    expect(matches(variable, versioned)).toBe(true)
    expect(matches(variable, other)).toBe(false)
  })
})

describe('object variables', () => {
  it.each([
    ['%CONTAINER_ID_OR_NAME%', ['web', 'my_app.1-x', 'a'.repeat(64)], ['', 'a/b', '-web', '.']],
    ['%CONTAINER_ID%', ['0123abcdef', 'f'.repeat(64)], ['web', 'F00', 'f'.repeat(65)]],
    ['%CONTAINER_NAME%', ['web-1'], ['/web', 'w b']],
    ['%VOLUME_NAME%', ['data', 'db_data.v2'], ['a/b', '..x']],
    ['%NETWORK_ID_OR_NAME%', ['bridge', 'vnet-socket'], ['a/b']],
    ['%NETWORK_ID%', ['abc123'], ['vnet']],
    ['%NETWORK_NAME%', ['vnet_socket'], ['vnet socket']],
    ['%PLUGIN_ID%', ['abc123'], ['vieux/sshfs']],
    ['%PLUGIN_NAME%', ['vieux/sshfs:latest', 'sshfs'], ['vieux/SSHFS']],
    ['%PLUGIN_ID_OR_NAME%', ['abc123', 'vieux/sshfs'], ['vieux//sshfs']],
    ['%EXEC_ID%', ['a'.repeat(64)], ['exec-1']],
    ['%IMAGE_ID%', ['sha256:' + 'a'.repeat(64), 'abc'], ['sha256:xyz', 'sha512:abc']],
    [
      '%IMAGE_REFERENCE%',
      [
        'busybox',
        'busybox:1.36',
        'library/busybox:latest',
        'registry.example.com:5000/team/app:v1.2',
        'localhost/app',
        'app@sha256:' + 'a'.repeat(64),
        'ghcr.io/o/app:1@sha256:' + 'b'.repeat(64),
      ],
      ['Busybox', 'app:', 'app@sha256:short', ':tag', 'a//b'],
    ],
    ['%IMAGE_ID_OR_REFERENCE%', ['abcdef', 'busybox:latest'], ['BAD']],
    ['%IMAGE_TAG%', ['v1.2-rc_3'], ['-v1', 'a'.repeat(129)]],
    ['%IMAGE_DIGEST%', ['sha256:' + 'c'.repeat(64)], ['sha256:' + 'c'.repeat(10)]],
    ['%IMAGE_REGISTRY_HOST%', ['registry.example.com:5000', 'localhost', '[::1]:5000'], ['-bad-']],
    ['%IMAGE_NAME%', ['team/app'], ['team/App']],
    ['%POD_ID_OR_NAME%', ['pod1'], ['a/b']],
    ['%SERVICE_ID_OR_NAME%', ['svc'], ['a/b']],
    ['%NODE_ID_OR_NAME%', ['node1'], ['a/b']],
    ['%TASK_ID%', ['t1'], ['a/b']],
    ['%SECRET_ID_OR_NAME%', ['s1'], ['a/b']],
    ['%CONFIG_ID_OR_NAME%', ['c1'], ['a/b']],
  ])('%s', (variable, good, bad) => {
    for (const value of good) expect(matches(`/x/${variable}/y`, `/x/${value}/y`), value).toBe(true)
    for (const value of bad) expect(matches(`/x/${variable}/y`, `/x/${value}/y`), value).toBe(false)
  })
})

describe('the variable table', () => {
  it.each(Object.keys(ruleVariables))('%%%s%% compiles inside a rule, alone and twice', (name) => {
    expect(() => parseRules(`GET /x/%${name}%\nGET %${name}%/%${name}%`)).not.toThrow()
  })
})

describe('expandVariables', () => {
  it('expands repeatedly until nothing changes', () => {
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
