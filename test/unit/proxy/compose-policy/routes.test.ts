/**
 * The compose policy (src/proxy/compose-policy/): a project loaded from real compose files with vault's
 * loader, and create bodies (and network, volume, pull and container requests) judged against it, hostile
 * ones included: case-variant and repeated keys, `..` and symlinked bind sources, another project's
 * labels, Object.prototype names as services.
 */
import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultGuardSettings } from '../../../../src/proxy/guard-settings.js'
import { loadComposePolicy } from '../../../../src/proxy/compose-policy/load.js'
import { planComposeRequest, type PolicyVerdict } from '../../../../src/proxy/compose-policy/routes.js'
import type { EngineRead } from '../../../../src/proxy/compose-policy/engine-read.js'
import type { ComposePolicy } from '../../../../src/proxy/compose-policy/policy.js'
import { checkRequest } from '../../../../src/proxy/check.js'
import { writeStack } from '../../../helpers/compose-stack.js'

const composeFile = `
services:
  web:
    image: nginx:1.27
    volumes:
      - ./html:/usr/share/nginx/html:ro
      - cache:/var/cache/nginx
      - \${DATA_DIR}/logs:/var/log/nginx
    networks: [front, back]
    security_opt: [no-new-privileges:true]
  proxy:
    image: vault:local
    volumes:
      - /var/run/docker.sock:/var/run/docker.sock:ro
    cap_add: [NET_ADMIN]
    security_opt: [seccomp=unconfined]
    sysctls: { kernel.domainname: example }
    secrets: [token]
  tools:
    image: busybox
    privileged: true
    pid: host
    network_mode: host
    devices: ['/dev/fuse:/dev/fuse']
    profiles: [debug]
  builder:
    build: .
volumes:
  cache: {}
secrets:
  token: { file: ./token.txt }
networks:
  front: {}
  back:
    driver_opts: { com.docker.network.bridge.name: br-back }
    ipam: { config: [{ subnet: 10.99.0.0/24 }] }
`

const labels = (service: string, project = 'app') => ({
  'com.docker.compose.project': project,
  'com.docker.compose.service': service,
})

const noEngine: EngineRead = () => Promise.reject(new Error('no engine read expected'))

async function decide(
  policy: ComposePolicy,
  request: { method?: string; path: string; query?: string },
  body?: unknown,
  read: EngineRead = noEngine,
): Promise<PolicyVerdict | 'pass'> {
  const plan = planComposeRequest(policy, defaultGuardSettings, {
    method: request.method ?? 'POST',
    path: request.path,
    query: request.query ?? '',
  })
  if (plan.action === 'pass') return 'pass'
  if (plan.action === 'refuse') return plan.refusal
  const bytes = Buffer.from(typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body))
  return plan.decide({ body: bytes, contentType: 'application/json' }, read)
}

const create = (policy: ComposePolicy, body: unknown) =>
  decide(policy, { path: '/v1.41/containers/create', query: '?name=x' }, body)

/** The create body docker-compose 1.29 sends for `web` (the fields the policy reads). */
function webBody(dir: string, hostConfig: Record<string, unknown> = {}) {
  return {
    Image: 'nginx:1.27',
    Labels: { ...labels('web'), 'com.docker.compose.oneoff': 'False' },
    HostConfig: {
      NetworkMode: 'app_back',
      Binds: [
        `${dir}/html:/usr/share/nginx/html:ro`,
        'app_cache:/var/cache/nginx:rw',
        `${dir}/data/logs:/var/log/nginx:rw`,
      ],
      SecurityOpt: ['no-new-privileges:true'],
      Privileged: false,
      CapAdd: null,
      ...hostConfig,
    },
    NetworkingConfig: { EndpointsConfig: { app_back: { Aliases: ['web'] } } },
  }
}

describe('compose policy: loading', () => {
  it('reads names as the engine sees them, bind sources resolved against the project directory', () => {
    const dir = writeStack({ 'compose.yaml': `name: app\n${composeFile}`, '.env': 'DATA_DIR=./data\n' })
    const policy = loadComposePolicy(['compose.yaml'], { COMPOSE_PROFILES: '' }, dir)
    const web = policy.services.get('web')!
    expect(web.mounts).toEqual([
      { type: 'bind', source: `${dir}/html`, target: '/usr/share/nginx/html', readOnly: true },
      { type: 'volume', source: 'app_cache', target: '/var/cache/nginx', readOnly: false },
      { type: 'bind', source: `${dir}/data/logs`, target: '/var/log/nginx', readOnly: false },
    ])
    expect([...web.networks]).toEqual(['app_front', 'app_back'])
    expect([...policy.services.get('builder')!.networks]).toEqual(['app_default'])
    expect([...policy.networks.keys()].sort()).toEqual(['app_back', 'app_default', 'app_front'])
    expect([...policy.volumes.keys()]).toEqual(['app_cache'])
    expect(policy.services.has('tools')).toBe(true)
    expect(policy.images.has('docker.io/library/nginx:1.27')).toBe(true)
    const narrowed = loadComposePolicy(['compose.yaml'], { COMPOSE_PROFILES: 'other' }, dir)
    expect(narrowed.services.has('tools')).toBe(false)
  })

  it('merges several files in order, as -f does, with the environment before the .env', () => {
    const dir = writeStack({
      'compose.yaml': `name: app\n${composeFile}`,
      'override.yaml':
        'services:\n  proxy:\n    volumes:\n      - /srv/engine.sock:/var/run/docker.sock:ro\n',
      '.env': 'DATA_DIR=./data\n',
    })
    const policy = loadComposePolicy(['compose.yaml', 'override.yaml'], { DATA_DIR: '/srv/data' }, dir)
    expect(policy.services.get('proxy')!.mounts).toEqual([
      { type: 'bind', source: '/srv/engine.sock', target: '/var/run/docker.sock', readOnly: true },
      { type: 'bind', source: `${dir}/token.txt`, target: '/run/secrets/token', readOnly: true },
    ])
    expect(policy.services.get('web')!.mounts[2]).toMatchObject({ source: '/srv/data/logs' })
  })

  it('names the file and the missing variable when the project does not load', () => {
    const dir = writeStack({ 'compose.yaml': 'services:\n  a:\n    image: ${NEEDED:?set it}\n' })
    expect(() => loadComposePolicy(['compose.yaml'], {}, dir)).toThrow(
      /PROXY_COMPOSE_POLICY compose.yaml: .*NEEDED/,
    )
  })
})

describe('compose policy: container create', () => {
  // `name: app`: the engine names below are the project's.
  const load = () => {
    const dir = writeStack({ 'compose.yaml': `name: app\n${composeFile}`, '.env': 'DATA_DIR=./data\n' })
    return { dir, policy: loadComposePolicy(['compose.yaml'], {}, dir) }
  }

  it("allows exactly what the service declares (docker-compose 1.29's body for web)", async () => {
    const { dir, policy } = load()
    expect(await create(policy, webBody(dir))).toEqual({})
  })

  it('refuses privileged: true on a service that does not declare it, naming service and field', async () => {
    const { dir, policy } = load()
    expect(await create(policy, webBody(dir, { Privileged: true }))).toEqual({
      field: 'HostConfig.Privileged',
      reason: 'service "web" does not declare privileged: true (HostConfig.Privileged)',
    })
  })

  it('refuses a bind the service does not declare, naming its source', async () => {
    const { dir, policy } = load()
    const body = webBody(dir)
    body.HostConfig.Binds = [...(body.HostConfig.Binds as string[]), '/etc:/host-etc']
    expect(await create(policy, body)).toEqual({
      field: 'HostConfig.Binds[3]',
      reason: 'service "web" does not declare a bind of "/etc" at "/host-etc" (HostConfig.Binds[3])',
    })
  })

  it('refuses a declared read-only bind sent writable', async () => {
    const { dir, policy } = load()
    const body = webBody(dir)
    ;(body.HostConfig.Binds as string[])[0] = `${dir}/html:/usr/share/nginx/html:rw`
    expect(await create(policy, body)).toMatchObject({
      field: 'HostConfig.Binds[0]',
      reason: expect.stringMatching(/declares a bind of ".*\/html" at \/usr\/share\/nginx\/html read-only/),
    })
  })

  it('refuses `..` tricks and symlinks that lead elsewhere from a declared source', async () => {
    const { dir, policy } = load()
    mkdirSync(join(dir, 'data'), { recursive: true })
    symlinkSync('/', join(dir, 'data', 'root'))
    for (const source of [`${dir}/html/../../../etc`, `${dir}/data/root`, `${dir}/data/logs/../root/etc`]) {
      const body = webBody(dir)
      ;(body.HostConfig.Binds as string[])[2] = `${source}:/var/log/nginx:rw`
      expect(await create(policy, body), source).toMatchObject({ field: 'HostConfig.Binds[2]' })
    }
    const clean = webBody(dir)
    ;(clean.HostConfig.Binds as string[])[2] = `${dir}/data/./logs/:/var/log/nginx/:rw`
    expect(await create(policy, clean)).toEqual({})
  })

  it('reads keys as dockerd does: case variants, the last one winning, and refuses exact repeats', async () => {
    const { dir, policy } = load()
    const text = JSON.stringify(webBody(dir)).replace(
      '"Privileged":false',
      '"Privileged":false,"privileged":true',
    )
    expect(await create(policy, text)).toMatchObject({ field: 'HostConfig.Privileged' })
    const hostConfig = JSON.stringify(webBody(dir).HostConfig)
    // Go decodes a struct given twice into the one before: the later Privileged wins.
    const merged = JSON.stringify(webBody(dir)).replace(/\}$/, ',"hostconfig":{"Privileged":true}}')
    expect(await create(policy, merged)).toMatchObject({ field: 'HostConfig.Privileged' })
    const undone = JSON.stringify(webBody(dir)).replace(
      /"HostConfig":\{/,
      '"hostconfig":{"Privileged":true},"HostConfig":{',
    )
    expect(await create(policy, undone)).toEqual({})
    const exact = JSON.stringify(webBody(dir)).replace(
      /\}$/,
      `,"HostConfig":${hostConfig.replace('"Privileged":false', '"Privileged":true')}}`,
    )
    expect(await create(policy, exact)).toMatchObject({
      field: 'body',
      reason: expect.stringMatching(/repeats a key/),
    })
  })

  it('refuses the host fields at the top level of the body (a 20.10 engine reads them there)', async () => {
    const { dir, policy } = load()
    expect(await create(policy, { ...webBody(dir), Binds: ['/:/host'] })).toMatchObject({ field: 'Binds[0]' })
  })

  it("refuses another project's labels, a missing label, unknown and Object.prototype service names", async () => {
    const { dir, policy } = load()
    const withLabels = (value: Record<string, string>) => ({ ...webBody(dir), Labels: value })
    expect(await create(policy, withLabels(labels('web', 'other')))).toEqual({
      field: 'Labels.com.docker.compose.project',
      reason: 'a container create of project "other", not "app" (Labels.com.docker.compose.project)',
    })
    expect(await create(policy, withLabels({}))).toMatchObject({ field: 'Labels.com.docker.compose.project' })
    for (const name of ['evil', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const body = JSON.stringify(withLabels(labels('web'))).replace(
        '"com.docker.compose.service":"web"',
        `"com.docker.compose.service":${JSON.stringify(name)}`,
      )
      expect(await create(policy, body), name).toEqual({
        field: 'Labels.com.docker.compose.service',
        reason: `project "app" has no service ${JSON.stringify(name)} (Labels.com.docker.compose.service)`,
      })
    }
    const protoProject = JSON.stringify(webBody(dir)).replace(
      '"com.docker.compose.project":"app",',
      '"__proto__":"app",',
    )
    expect(await create(policy, protoProject)).toMatchObject({ field: 'Labels.com.docker.compose.project' })
  })

  it('refuses an image, network or capability the service does not declare', async () => {
    const { dir, policy } = load()
    expect(await create(policy, { ...webBody(dir), Image: 'evil:latest' })).toEqual({
      field: 'Image',
      reason: 'service "web" does not declare image "evil:latest" (Image)',
    })
    expect(await create(policy, webBody(dir, { NetworkMode: 'host' }))).toMatchObject({
      field: 'HostConfig.NetworkMode',
      reason: 'service "web" does not declare network "host" (HostConfig.NetworkMode)',
    })
    expect(
      await create(policy, { ...webBody(dir), NetworkingConfig: { EndpointsConfig: { other_net: {} } } }),
    ).toMatchObject({ field: 'NetworkingConfig.EndpointsConfig' })
    expect(await create(policy, webBody(dir, { CapAdd: ['SYS_ADMIN'] }))).toMatchObject({
      field: 'HostConfig.CapAdd',
      reason: 'service "web" does not declare cap_add "SYS_ADMIN" (HostConfig.CapAdd)',
    })
    expect(await create(policy, webBody(dir, { PidMode: 'host' }))).toMatchObject({
      reason: 'service "web" does not declare pid: host (HostConfig.PidMode)',
    })
    expect(
      await create(
        policy,
        webBody(dir, { Devices: [{ PathOnHost: '/dev/sda', PathInContainer: '/dev/sda' }] }),
      ),
    ).toMatchObject({ field: 'HostConfig.Devices[0]' })
    expect(
      await create(policy, webBody(dir, { Mounts: [{ Type: 'bind', Source: '/', Target: '/host' }] })),
    ).toMatchObject({ field: 'HostConfig.Mounts[0]', reason: expect.stringContaining('"/"') })
  })

  it('allows what a service declares even where the guard refuses it; the guard still judges the rest', async () => {
    const { dir, policy } = load()
    const proxy = (hostConfig: Record<string, unknown>) => ({
      Image: 'vault:local',
      Labels: labels('proxy'),
      HostConfig: {
        NetworkMode: 'app_default',
        // docker-compose 1.29 binds a `secrets: file:` read-only at /run/secrets/NAME.
        Binds: ['/var/run/docker.sock:/var/run/docker.sock:ro', `${dir}/token.txt:/run/secrets/token:ro`],
        CapAdd: ['NET_ADMIN'],
        SecurityOpt: ['seccomp=unconfined'],
        Sysctls: { 'kernel.domainname': 'example' },
        ...hostConfig,
      },
    })
    expect(await create(policy, proxy({}))).toEqual({})
    expect(
      await create(policy, proxy({ SecurityOpt: ['seccomp=unconfined', 'apparmor=unconfined'] })),
    ).toMatchObject({
      field: 'HostConfig.SecurityOpt',
      reason: expect.stringMatching(/^service "proxy" does not declare it, and .*apparmor=unconfined/),
    })
    expect(await create(policy, proxy({ Sysctls: { 'kernel.domainname': 'other' } }))).toMatchObject({
      field: 'HostConfig.Sysctls',
    })
    expect(await create(policy, proxy({ MaskedPaths: [] }))).toMatchObject({
      field: 'HostConfig.MaskedPaths',
    })
    const tools = {
      Image: 'busybox',
      Labels: labels('tools'),
      HostConfig: {
        NetworkMode: 'host',
        Privileged: true,
        PidMode: 'host',
        Devices: [{ PathOnHost: '/dev/fuse', PathInContainer: '/dev/fuse', CgroupPermissions: 'rwm' }],
      },
    }
    expect(await create(policy, tools), 'a service of a profile').toEqual({})
  })

  it("allows a build's image under compose's names for it, and no other", async () => {
    const { policy } = load()
    const builder = (image: string) => ({
      Image: image,
      Labels: labels('builder'),
      HostConfig: { NetworkMode: 'app_default' },
    })
    expect(await create(policy, builder('app_builder'))).toEqual({})
    expect(await create(policy, builder('app-builder'))).toEqual({})
    expect(await create(policy, builder('busybox'))).toMatchObject({ field: 'Image' })
  })
})

describe('compose policy: networks, volumes, pulls and container actions', () => {
  const load = () => {
    const dir = writeStack({ 'compose.yaml': `name: app\n${composeFile}`, '.env': 'DATA_DIR=./data\n' })
    return loadComposePolicy(['compose.yaml'], {}, dir)
  }
  const networkLabels = { ...labels('x'), 'com.docker.compose.network': 'back' }

  it('creates only declared networks and volumes, with their declared drivers and options', async () => {
    const policy = load()
    const network = (body: Record<string, unknown>) =>
      decide(policy, { path: '/v1.41/networks/create' }, body)
    expect(
      await network({
        Name: 'app_back',
        Driver: 'bridge',
        Options: { 'com.docker.network.bridge.name': 'br-back' },
        Labels: networkLabels,
      }),
    ).toEqual({})
    const pool = (Subnet: string) => ({ Driver: 'default', Config: [{ Subnet }] })
    expect(
      await network({ Name: 'app_back', IPAM: pool('10.99.0.0/24'), Labels: networkLabels }),
      'the declared pool',
    ).toEqual({})
    expect(await network({ Name: 'app_back', IPAM: pool('192.168.1.0/24'), Labels: networkLabels })).toEqual({
      field: 'IPAM.Config[0]',
      reason: 'network "app_back" does not declare the address pool "192.168.1.0/24" (IPAM.Config[0])',
    })
    expect(
      await network({ Name: 'app_front', IPAM: pool('10.99.0.0/24'), Labels: networkLabels }),
    ).toMatchObject({
      field: 'IPAM.Config[0]',
    })
    expect(await network({ Name: 'app_other', Driver: 'bridge', Labels: networkLabels })).toMatchObject({
      field: 'Name',
    })
    expect(
      await network({
        Name: 'app_back',
        Driver: 'macvlan',
        Options: { parent: 'eth0' },
        Labels: networkLabels,
      }),
    ).toMatchObject({ field: 'Driver' })
    expect(
      await network({
        Name: 'app_front',
        Driver: 'bridge',
        Options: { parent: 'eth0' },
        Labels: networkLabels,
      }),
    ).toMatchObject({
      field: 'Options',
    })
    expect(await network({ Name: 'app_back', Labels: labels('x', 'other') })).toMatchObject({
      field: 'Labels.com.docker.compose.project',
    })
    const volume = (body: Record<string, unknown>) => decide(policy, { path: '/v1.41/volumes/create' }, body)
    expect(await volume({ Name: 'app_cache', Driver: 'local', Labels: labels('x') })).toEqual({})
    expect(
      await volume({
        Name: 'app_cache',
        Driver: 'local',
        DriverOpts: { o: 'bind', device: '/etc' },
        Labels: labels('x'),
      }),
    ).toMatchObject({ field: 'DriverOpts.device' })
  })

  it('pulls only declared images', async () => {
    const policy = load()
    const pull = (query: string) => decide(policy, { path: '/v1.41/images/create', query })
    expect(await pull('?fromImage=nginx&tag=1.27')).toBe('pass')
    expect(await pull('?fromImage=docker.io%2Flibrary%2Fnginx&tag=1.27')).toBe('pass')
    expect(await pull('?fromImage=busybox&tag=latest')).toBe('pass')
    expect(await pull('?fromImage=evil&tag=latest')).toMatchObject({ field: 'fromImage' })
    expect(await pull('?fromImage=nginx&tag=1.27&fromImage=evil')).toMatchObject({ field: 'fromImage' })
    expect(await pull('?fromSrc=-')).toMatchObject({ field: 'fromSrc' })
  })

  it("acts on the project's containers only, for their id", async () => {
    const policy = load()
    const engine =
      (answers: Record<string, unknown>): EngineRead =>
      (target) =>
        Promise.resolve(
          target in answers ? { status: 200, json: answers[target] } : { status: 404, json: {} },
        )
    const read = engine({
      '/v1.41/containers/app_web_1/json': { Id: 'a'.repeat(64), Config: { Labels: labels('web') } },
      '/v1.41/containers/other/json': { Id: 'b'.repeat(64), Config: { Labels: labels('web', 'other') } },
      '/v1.41/containers/proto/json': { Id: 'c'.repeat(64), Config: { Labels: { __proto__: 'app' } } },
    })
    expect(
      await decide(policy, { path: '/v1.41/containers/app_web_1/stop', query: '?t=10' }, undefined, read),
    ).toEqual({
      target: `/v1.41/containers/${'a'.repeat(64)}/stop?t=10`,
    })
    expect(
      await decide(policy, { method: 'DELETE', path: '/v1.41/containers/other' }, undefined, read),
    ).toEqual({
      field: 'container',
      reason: 'container "other" is not project "app"\'s (its label com.docker.compose.project is "other")',
    })
    expect(await decide(policy, { path: '/v1.41/containers/proto/restart' }, undefined, read)).toMatchObject({
      field: 'container',
    })
    expect(await decide(policy, { method: 'GET', path: '/v1.41/containers/json' })).toBe('pass')
  })

  it("connects only the project's containers, and only to networks their service joins", async () => {
    const policy = load()
    const read: EngineRead = (target) => {
      const answers: Record<string, unknown> = {
        '/v1.41/networks/app_back': { Id: 'n'.repeat(64), Name: 'app_back', Labels: labels('x') },
        '/v1.41/networks/app_default': { Id: 'd'.repeat(64), Name: 'app_default', Labels: labels('x') },
        '/v1.41/networks/theirs': { Id: 't'.repeat(64), Name: 'theirs', Labels: labels('x', 'other') },
        '/v1.41/containers/app_web_1/json': { Id: 'a'.repeat(64), Config: { Labels: labels('web') } },
        '/v1.41/containers/intruder/json': { Id: 'b'.repeat(64), Config: { Labels: labels('web', 'other') } },
      }
      return Promise.resolve(
        target in answers ? { status: 200, json: answers[target] } : { status: 404, json: {} },
      )
    }
    const connect = (network: string, container: string) =>
      decide(policy, { path: `/v1.41/networks/${network}/connect` }, { Container: container }, read)
    expect(await connect('app_back', 'app_web_1')).toEqual({
      target: `/v1.41/networks/${'n'.repeat(64)}/connect`,
    })
    expect(await connect('app_default', 'app_web_1')).toEqual({
      field: 'Container',
      reason: 'service "web" does not declare network "app_default"',
    })
    expect(await connect('app_back', 'intruder')).toMatchObject({ field: 'Container' })
    // docker-compose 1.29 connects with the service name and the container's short id as aliases
    const withEndpoint = (endpoint: Record<string, unknown>) =>
      decide(
        policy,
        { path: '/v1.41/networks/app_back/connect' },
        { Container: 'app_web_1', EndpointConfig: endpoint },
        read,
      )
    expect(await withEndpoint({ Aliases: ['web', 'a'.repeat(12)], Links: [] })).toEqual({
      target: `/v1.41/networks/${'n'.repeat(64)}/connect`,
    })
    expect(await withEndpoint({ Aliases: ['web', 'proxy'] })).toEqual({
      field: 'EndpointConfig.Aliases',
      reason:
        'service "web" does not declare alias "proxy" on network "app_back" (EndpointConfig.Aliases[1])',
    })
    expect(await withEndpoint({ Aliases: ['b'.repeat(12)] }), "another container's short id").toMatchObject({
      field: 'EndpointConfig.Aliases',
    })
    expect(await withEndpoint({ links: ['other_db_1:db'] })).toMatchObject({ field: 'EndpointConfig.Links' })
    expect(await withEndpoint({ IPAMConfig: {} })).toMatchObject({ target: expect.any(String) })
    expect(await withEndpoint({ IPAMConfig: { IPv4Address: '10.99.0.2' } })).toEqual({
      field: 'EndpointConfig.IPAMConfig',
      reason:
        'service "web" does not declare address "10.99.0.2" on network "app_back" (EndpointConfig.IPAMConfig)',
    })
    expect(
      await decide(
        policy,
        { path: '/v1.41/networks/app_back/connect' },
        '{"Container":"app_web_1","EndpointConfig":{"Aliases":["web"],"aliases":["proxy"]}}',
        read,
      ),
    ).toMatchObject({ reason: expect.stringMatching(/given twice/) })
    expect(await connect('theirs', 'app_web_1')).toMatchObject({ field: 'network' })
    expect(
      await decide(policy, { method: 'DELETE', path: '/v1.41/networks/theirs' }, undefined, read),
    ).toMatchObject({ field: 'network', reason: expect.stringMatching(/not project "app"'s/) })
  })
})

describe('compose policy: vault proxy check', () => {
  it('explains a create as the proxy decides it, and says what waits for the engine', () => {
    const dir = writeStack({ 'compose.yaml': `name: app\n${composeFile}`, '.env': 'DATA_DIR=./data\n' })
    const composePolicy = loadComposePolicy(['compose.yaml'], {}, dir)
    const settings = { composePolicy: ['compose.yaml'] }
    const body = (hostConfig: Record<string, unknown>) => ({
      bytes: Buffer.from(
        JSON.stringify({ ...webBody(dir), HostConfig: { ...webBody(dir).HostConfig, ...hostConfig } }),
      ),
      contentType: 'application/json',
    })
    const check = (method: string, path: string, checked?: ReturnType<typeof body>) =>
      checkRequest(settings, method, path, { body: checked, composePolicy })
    expect(check('POST', '/v1.41/containers/create', body({}))).toMatchObject({
      decision: 'allow',
      ruleSet: 'compose-policy',
    })
    expect(check('POST', '/v1.41/containers/create', body({ Privileged: true }))).toMatchObject({
      decision: 'deny',
      field: 'HostConfig.Privileged',
      reason: 'compose policy: service "web" does not declare privileged: true (HostConfig.Privileged)',
    })
    expect(check('POST', '/v1.41/containers/app_web_1/stop')).toMatchObject({
      decision: 'allow',
      reason: expect.stringMatching(/only for project "app"'s own containers/),
    })
    expect(check('POST', '/v1.41/containers/app_web_1/exec')).toMatchObject({
      decision: 'deny',
      reason: 'no rule allows it',
    })
    expect(() => checkRequest({ ...settings, preset: 'management' }, 'GET', '/_ping')).toThrow(
      /PROXY_COMPOSE_POLICY and PROXY_PRESET are given together/,
    )
  })
})
