/**
 * Published ports under the compose policy (match-ports.ts, declared-ports.ts): a create body may bind
 * only what the service's `ports` declare, read from the file by vault's loader (short and long syntax,
 * host addresses, ranges, protocols) and from the body as dockerd decodes it. Benign bodies are what
 * docker-compose 1.29 (docker-py's build_port_bindings) and compose v2 send for the declared shapes.
 */
import { describe, expect, it } from 'vitest'
import { composeLabels, createVerdict, policyOf } from '../../../helpers/compose-policy-create.js'

const compose = `
services:
  database:
    image: postgres:15-alpine
    ports:
      - "127.0.0.1:5432:5432"
    expose: ["9187"]
  web:
    image: nginx:1.27
    ports:
      - "8080:80"
      - "5000"
      - "8000-8002:9000-9002/udp"
      - "7000-7010:81"
      - "[::1]:6000:6000"
      - target: 443
        published: 8443
        host_ip: 0.0.0.0
      - target: 53
        published: "5353"
        protocol: udp
        host_ip: 127.0.0.1
  worker:
    image: busybox
`

type Bindings = Record<string, { HostIp: string; HostPort: string }[] | null>

const body = (service: string, image: string, hostConfig: Record<string, unknown>) => ({
  Image: image,
  Labels: composeLabels(service),
  ExposedPorts: { '5432/tcp': {}, '9187/tcp': {} },
  HostConfig: { NetworkMode: 'app_default', ...hostConfig },
  NetworkingConfig: { EndpointsConfig: { app_default: { Aliases: [service] } } },
})
const database = (bindings: Bindings | undefined, more: Record<string, unknown> = {}) =>
  body('database', 'postgres:15-alpine', { PortBindings: bindings, ...more })
const web = (bindings: Bindings) => body('web', 'nginx:1.27', { PortBindings: bindings })
const at = (HostIp: string, HostPort: string) => [{ HostIp, HostPort }]

/** What docker-compose 1.29 sends for web's ports (docker-py: one key per container port). */
const webBindings: Bindings = {
  '80/tcp': at('', '8080'),
  '5000/tcp': at('', ''),
  '9000/udp': at('', '8000'),
  '9001/udp': at('', '8001'),
  '9002/udp': at('', '8002'),
  '81/tcp': at('', '7000-7010'),
  '6000/tcp': at('::1', '6000'),
  '443/tcp': at('0.0.0.0', '8443'),
  '53/udp': at('127.0.0.1', '5353'),
}

describe('compose policy: published ports', () => {
  const policy = policyOf(compose)

  it('reads the declared ports from short and long syntax, one per container port', () => {
    expect(policy.services.get('database')!.ports).toEqual([
      { container: 5432, protocol: 'tcp', hostIp: '127.0.0.1', hostPorts: { first: 5432, last: 5432 } },
    ])
    const ports = policy.services.get('web')!.ports
    expect(ports).toHaveLength(9)
    expect(ports).toContainEqual({ container: 5000, protocol: 'tcp', hostIp: '', hostPorts: undefined })
    expect(ports).toContainEqual({
      container: 81,
      protocol: 'tcp',
      hostIp: '',
      hostPorts: { first: 7000, last: 7010 },
    })
    expect(ports).toContainEqual({
      container: 443,
      protocol: 'tcp',
      hostIp: '',
      hostPorts: { first: 8443, last: 8443 },
    })
    expect(policy.services.get('worker')!.ports).toEqual([])
  })

  it('allows what docker-compose 1.29 and compose v2 send for the declared ports', async () => {
    expect(await createVerdict(policy, database({ '5432/tcp': at('127.0.0.1', '5432') }))).toEqual({})
    expect(await createVerdict(policy, web(webBindings))).toEqual({})
    // compose v2: the same, `HostIp` empty for every address, `0.0.0.0` or `::` allowed as the same
    const v2 = { ...webBindings, '80/tcp': at('0.0.0.0', '8080'), '5000/tcp': at('::', '') }
    expect(await createVerdict(policy, web(v2))).toEqual({})
    // no ports at all, an empty map, null, an empty list: nothing published
    for (const bindings of [undefined, {}, null, { '5432/tcp': [] }, { '5432/tcp': null }])
      expect(await createVerdict(policy, database(bindings as Bindings)), JSON.stringify(bindings)).toEqual(
        {},
      )
    expect(
      await createVerdict(policy, body('worker', 'busybox', { PublishAllPorts: false, PortBindings: {} })),
    ).toEqual({})
  })

  it('allows a binding narrower than declared: one address of every address, a port of a declared range', async () => {
    const narrower = { ...webBindings, '80/tcp': at('127.0.0.1', '8080'), '81/tcp': at('', '7005') }
    expect(await createVerdict(policy, web(narrower))).toEqual({})
    expect(await createVerdict(policy, web({ '81/tcp': at('', '7002-7004') }))).toEqual({})
    expect(await createVerdict(policy, web({ '6000/tcp': at('[0:0::1]', '6000') }))).toEqual({})
    expect(
      await createVerdict(policy, web({ '80': at('', '8080') })),
      'a key without protocol is tcp',
    ).toEqual({})
  })

  it('refuses the private database published on every address', async () => {
    for (const address of ['', '0.0.0.0', '::', '192.0.2.1'])
      expect(await createVerdict(policy, database({ '5432/tcp': at(address, '5432') })), address).toEqual({
        field: 'HostConfig.PortBindings.5432/tcp',
        reason: `service "database" publishes 5432/tcp only at 127.0.0.1:5432, not ${JSON.stringify(
          `${address === '' ? '0.0.0.0' : address}:5432`,
        )} (HostConfig.PortBindings.5432/tcp[0])`,
      })
  })

  it('refuses an extra binding, another host port, another protocol, a port the file does not publish', async () => {
    const refused = async (bindings: Bindings, field: string) =>
      expect(await createVerdict(policy, database(bindings)), JSON.stringify(bindings)).toMatchObject({
        field,
        reason: expect.stringMatching(/^service "database" /),
      })
    await refused(
      { '5432/tcp': [...at('127.0.0.1', '5432'), ...at('0.0.0.0', '5432')] },
      'HostConfig.PortBindings.5432/tcp',
    )
    await refused({ '5432/tcp': at('127.0.0.1', '15432') }, 'HostConfig.PortBindings.5432/tcp')
    await refused({ '5432/tcp': at('127.0.0.1', '') }, 'HostConfig.PortBindings.5432/tcp')
    await refused({ '5432/tcp': at('127.0.0.1', '5432-5433') }, 'HostConfig.PortBindings.5432/tcp')
    await refused({ '5432/udp': at('127.0.0.1', '5432') }, 'HostConfig.PortBindings.5432/udp')
    await refused(
      { '5432/tcp': at('127.0.0.1', '5432'), '9187/tcp': at('127.0.0.1', '9187') },
      'HostConfig.PortBindings.9187/tcp',
    )
    expect(await createVerdict(policy, database({ '22/tcp': at('', '2222') }))).toEqual({
      field: 'HostConfig.PortBindings.22/tcp',
      reason: 'service "database" does not publish 22/tcp (HostConfig.PortBindings.22/tcp[0] "0.0.0.0:2222")',
    })
    // a port the file leaves to the engine is not one the client picks, nor the other way round
    expect(await createVerdict(policy, web({ '5000/tcp': at('', '22') }))).toMatchObject({
      field: 'HostConfig.PortBindings.5000/tcp',
    })
    expect(await createVerdict(policy, web({ '80/tcp': at('', '') }))).toMatchObject({
      field: 'HostConfig.PortBindings.80/tcp',
    })
    expect(await createVerdict(policy, web({ '81/tcp': at('', '6999-7010') }))).toMatchObject({
      field: 'HostConfig.PortBindings.81/tcp',
    })
    expect(await createVerdict(policy, web({ '6000/tcp': at('127.0.0.1', '6000') }))).toMatchObject({
      field: 'HostConfig.PortBindings.6000/tcp',
    })
  })

  it('refuses keys and values the engine might read otherwise: ranges, odd protocols, bad ports', async () => {
    for (const key of ['5432-5433/tcp', '5432/TCP', '5432/icmp', ' 5432/tcp', '5432/tcp/x', '', '__proto__'])
      expect(await createVerdict(policy, database({ [key]: at('127.0.0.1', '5432') })), key).toMatchObject({
        field: `HostConfig.PortBindings.${key}`,
      })
    for (const port of ['+5432', '5432 ', '0x1538', '5432-', '70000'])
      expect(
        await createVerdict(policy, database({ '5432/tcp': at('127.0.0.1', port) })),
        port,
      ).toMatchObject({
        field: 'HostConfig.PortBindings.5432/tcp',
      })
    for (const address of ['localhost', '127.0.0.1 ', 'fe80::1%eth0', '[::1', '::ffff:127.0.0.1'])
      expect(
        await createVerdict(policy, database({ '5432/tcp': at(address, '5432') })),
        address,
      ).toMatchObject({
        field: 'HostConfig.PortBindings.5432/tcp',
      })
    expect(await createVerdict(policy, web({ '6000/tcp': at('fe80::1%eth0', '6000') }))).toMatchObject({
      field: 'HostConfig.PortBindings.6000/tcp',
    })
  })

  it('refuses PublishAllPorts, which publishes every exposed port on every address', async () => {
    expect(await createVerdict(policy, database(undefined, { PublishAllPorts: true }))).toEqual({
      field: 'HostConfig.PublishAllPorts',
      reason:
        'service "database" cannot declare PublishAllPorts (every exposed port on every address); publish ports with ports: (HostConfig.PublishAllPorts)',
    })
    expect(await createVerdict(policy, { ...database(undefined), PublishAllPorts: true })).toMatchObject({
      field: 'PublishAllPorts',
    })
  })

  it('reads the body as dockerd does: case variants, the last winning, top-level fields, repeats refused', async () => {
    const hostile = database({ '5432/tcp': at('127.0.0.1', '5432') })
    const text = JSON.stringify(hostile)
    // a lower-case key after the declared one: Go decodes both into one map, the later entries added
    const lower = text.replace(
      '"PortBindings":{"5432/tcp"',
      '"portbindings":{"5432/tcp":[{"hostip":"0.0.0.0","hostport":"5432"}]},"PortBindings":{"5432/tcp"',
    )
    expect(await createVerdict(policy, lower)).toMatchObject({
      field: 'HostConfig.PortBindings',
      reason: expect.stringMatching(/given twice/),
    })
    const variantKeys = text.replace(
      '"HostIp":"127.0.0.1","HostPort":"5432"',
      '"HostIp":"127.0.0.1","HOSTIP":"0.0.0.0","HostPort":"5432"',
    )
    expect(await createVerdict(policy, variantKeys)).toMatchObject({
      field: 'HostConfig.PortBindings.5432/tcp',
    })
    const exactRepeat = text.replace('"HostIp":"127.0.0.1"', '"HostIp":"127.0.0.1","HostIp":"0.0.0.0"')
    expect(await createVerdict(policy, exactRepeat)).toMatchObject({
      field: 'body',
      reason: expect.stringMatching(/repeats a key/),
    })
    const publishAll = text.replace('"PortBindings"', '"publishALLports":true,"PortBindings"')
    expect(await createVerdict(policy, publishAll)).toMatchObject({ field: 'HostConfig.PublishAllPorts' })
    const kelvinKey = text.replace(
      '"PortBindings":{"5432/tcp":[{"HostIp":"127.0.0.1"',
      '"PortBindings":{"5432/tcp":[{"HostIp":"127.0.0.1","Ho\u017ftIp":"::"',
    )
    expect(await createVerdict(policy, kelvinKey)).toMatchObject({
      field: 'HostConfig.PortBindings.5432/tcp',
    })
    // the top level (a 20.10 engine reads HostConfig's fields there when HostConfig is absent)
    const { HostConfig: _, ...bare } = database(undefined)
    expect(
      await createVerdict(policy, { ...bare, PortBindings: { '5432/tcp': at('', '5432') } }),
    ).toMatchObject({
      field: 'PortBindings.5432/tcp',
    })
  })

  it("does not read ExposedPorts (it opens nothing on the host) nor the image's EXPOSE", async () => {
    const exposed = { ...database(undefined), ExposedPorts: { '22/tcp': {}, '5432/tcp': {} } }
    expect(await createVerdict(policy, exposed)).toEqual({})
  })
})
