/**
 * Where a created container's names resolve, under the compose policy (match-lookups.ts,
 * declared-lookups.ts): `ExtraHosts`, `Dns`, `DnsSearch`, `DnsOptions` and `Links` (HostConfig, top
 * level and network endpoints) only as the service declares them. Benign bodies are what docker-compose
 * 1.29 sends (docker-py: `name:ip` extra hosts, `CONTAINER:ALIAS` links, compose v1's container names)
 * and compose v2's forms (`PROJECT-SERVICE-N`, `name=ip`).
 */
import { describe, expect, it } from 'vitest'
import { composeLabels, createVerdict, policyOf } from '../../../helpers/compose-policy-create.js'

const compose = `
services:
  web:
    image: nginx:1.27
    networks:
      default:
      back:
        aliases: [www]
        ipv4_address: 10.99.0.10
        ipv6_address: fd00:99::10
    extra_hosts: ["api.test:10.0.0.1", "v6.test=[2001:db8::1]", "gw.test:host-gateway"]
    dns: 10.0.0.53
    dns_search: [example.test]
    dns_opt: ["ndots:2"]
    links: [cache, "db:database"]
    external_links: ["legacy_redis_1:redis"]
  cache:
    image: redis
    extra_hosts:
      api.test: 10.0.0.2
  db:
    image: postgres
    container_name: the-db
  worker:
    image: busybox
networks:
  back:
    enable_ipv6: true
    ipam: { config: [{ subnet: 10.99.0.0/24 }, { subnet: "fd00:99::/64" }] }
`

const body = (service: string, image: string, hostConfig: Record<string, unknown>) => ({
  Image: image,
  Labels: composeLabels(service),
  HostConfig: { NetworkMode: 'app_default', ...hostConfig },
  NetworkingConfig: { EndpointsConfig: { app_default: { Aliases: [service] } } },
})
const web = (hostConfig: Record<string, unknown>) => body('web', 'nginx:1.27', hostConfig)
const worker = (hostConfig: Record<string, unknown>) => body('worker', 'busybox', hostConfig)

describe('compose policy: extra hosts, DNS and links', () => {
  const policy = policyOf(compose)

  it('allows what docker-compose 1.29 and compose v2 send for the declared settings', async () => {
    const v1 = web({
      ExtraHosts: ['api.test:10.0.0.1', 'v6.test:2001:db8::1', 'gw.test:host-gateway'],
      Dns: ['10.0.0.53'],
      DnsSearch: ['example.test'],
      DnsOptions: ['ndots:2'],
      Links: [
        'app_cache_1:app_cache_1',
        'app_cache_1:cache',
        'app_cache_1:cache_1',
        'the-db:database',
        'legacy_redis_1:redis',
      ],
    })
    expect(await createVerdict(policy, v1)).toEqual({})
    const v2 = web({
      ExtraHosts: ['api.test=10.0.0.1', 'v6.test=2001:0db8:0::1'],
      Links: ['app-cache-1:cache', 'app-cache-2:app-cache-2', '/the-db:/app-web-1/database'],
    })
    expect(await createVerdict(policy, v2)).toEqual({})
    // a one-off (`docker-compose run web`) links to its own service's containers
    expect(await createVerdict(policy, web({ Links: ['app_web_1:web'] }))).toEqual({})
    // a map in the file; docker-py's empty defaults
    expect(
      await createVerdict(policy, body('cache', 'redis', { ExtraHosts: ['api.test:10.0.0.2'] })),
    ).toEqual({})
    expect(
      await createVerdict(policy, worker({ Links: [], ExtraHosts: null, Dns: null, DnsSearch: [] })),
    ).toEqual({})
  })

  it('refuses an extra host the service does not declare, or a declared name at another address', async () => {
    expect(await createVerdict(policy, worker({ ExtraHosts: ['registry.example:203.0.113.9'] }))).toEqual({
      field: 'HostConfig.ExtraHosts',
      reason:
        'service "worker" does not declare extra_hosts "registry.example:203.0.113.9" (HostConfig.ExtraHosts[0])',
    })
    for (const entry of [
      'api.test:10.0.0.2',
      'api.test=10.6.6.6',
      'api.test',
      'api.test:',
      ':10.0.0.1',
      'API.test:10.0.0.1',
      'gw.test:10.0.0.1',
    ])
      expect(
        await createVerdict(policy, web({ ExtraHosts: ['api.test:10.0.0.1', entry] })),
        entry,
      ).toMatchObject({
        field: 'HostConfig.ExtraHosts',
        reason: expect.stringContaining('(HostConfig.ExtraHosts[1])'),
      })
  })

  it('refuses an undeclared DNS server, search domain or option', async () => {
    expect(await createVerdict(policy, web({ Dns: ['10.0.0.53', '203.0.113.53'] }))).toEqual({
      field: 'HostConfig.Dns',
      reason: 'service "web" does not declare dns "203.0.113.53" (HostConfig.Dns[1])',
    })
    expect(await createVerdict(policy, worker({ Dns: ['10.0.0.53'] }))).toMatchObject({
      field: 'HostConfig.Dns',
    })
    expect(await createVerdict(policy, web({ DnsSearch: ['evil.example'] }))).toMatchObject({
      field: 'HostConfig.DnsSearch',
      reason: expect.stringContaining('dns_search "evil.example"'),
    })
    expect(await createVerdict(policy, web({ DnsOptions: ['ndots:2', 'attempts:1'] }))).toMatchObject({
      field: 'HostConfig.DnsOptions',
    })
  })

  it("refuses a link to a container of a service it does not link to, another project's, or by id", async () => {
    expect(await createVerdict(policy, worker({ Links: ['app_db_1:db'] }))).toEqual({
      field: 'HostConfig.Links',
      reason: 'service "worker" does not declare links or external_links to "app_db_1" (HostConfig.Links[0])',
    })
    for (const link of [
      'other_cache_1:cache',
      'app_cache_x:cache',
      'app_cache-1:cache',
      'app_db_1:database',
      '3f4e9a1b2c3d:cache',
      'legacy_redis_2:redis',
      'a:b:c',
      '',
    ])
      expect(await createVerdict(policy, web({ Links: [link] })), link).toMatchObject({
        field: 'HostConfig.Links',
      })
    // a link on a network endpoint is a link too
    const endpoint = {
      ...web({}),
      NetworkingConfig: { EndpointsConfig: { app_default: { Links: ['other_db_1:cache'] } } },
    }
    expect(await createVerdict(policy, endpoint)).toMatchObject({
      field: 'NetworkingConfig.EndpointsConfig.app_default.Links',
    })
  })

  it("allows an endpoint's aliases the service declares, and refuses another service's name", async () => {
    const aliases = (network: string, list: string[]) => ({
      ...web({}),
      NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: list } } },
    })
    // docker-compose 1.29: the service name and the network's declared aliases; compose v2: also the
    // container's name
    expect(await createVerdict(policy, aliases('app_back', ['web', 'www']))).toEqual({})
    expect(await createVerdict(policy, aliases('app_default', ['web', 'app-web-1', 'app_web_2']))).toEqual({})
    expect(await createVerdict(policy, aliases('app_back', ['app-web-run-3f4e9a1b2c3d']))).toEqual({})
    expect(await createVerdict(policy, aliases('app_back', ['web', 'db']))).toEqual({
      field: 'NetworkingConfig.EndpointsConfig.app_back.Aliases',
      reason:
        'service "web" does not declare alias "db" on network "app_back" (NetworkingConfig.EndpointsConfig.app_back.Aliases[1])',
    })
    // an alias declared on one network is not one on another; no short id on a create; not the db's names
    for (const alias of ['the-db', 'app_db_1', 'app-cache-1', '3f4e9a1b2c3d', 'app_web_x', 'WEB'])
      expect(await createVerdict(policy, aliases('app_default', [alias])), alias).toMatchObject({
        field: 'NetworkingConfig.EndpointsConfig.app_default.Aliases',
      })
    expect(await createVerdict(policy, aliases('app_default', ['www']))).toMatchObject({
      reason: expect.stringContaining('alias "www" on network "app_default"'),
    })
    // a service with a container_name is known by it, not by compose's numbered names
    const db = (list: string[]) => ({
      ...body('db', 'postgres', {}),
      NetworkingConfig: { EndpointsConfig: { app_default: { Aliases: list } } },
    })
    expect(await createVerdict(policy, db(['db', 'the-db']))).toEqual({})
    expect(await createVerdict(policy, db(['app_db_1']))).toMatchObject({
      reason: expect.stringContaining('"app_db_1"'),
    })
  })

  it("allows an endpoint's declared fixed addresses, and refuses any other (another service's address)", async () => {
    const ipam = (network: string, IPAMConfig: unknown) => ({
      ...web({}),
      NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: ['web'], IPAMConfig } } },
    })
    // docker-compose 1.29 sends the declared addresses, or an empty IPAMConfig
    expect(await createVerdict(policy, ipam('app_back', { IPv4Address: '10.99.0.10' }))).toEqual({})
    expect(
      await createVerdict(
        policy,
        ipam('app_back', { IPv4Address: '10.99.0.10', IPv6Address: 'fd00:99:0::10' }),
      ),
    ).toEqual({})
    expect(await createVerdict(policy, ipam('app_default', {}))).toEqual({})
    expect(await createVerdict(policy, ipam('app_default', { IPv4Address: '', LinkLocalIPs: [] }))).toEqual(
      {},
    )
    expect(await createVerdict(policy, ipam('app_back', { IPv4Address: '10.99.0.2' }))).toEqual({
      field: 'NetworkingConfig.EndpointsConfig.app_back.IPAMConfig',
      reason:
        'service "web" does not declare address "10.99.0.2" on network "app_back" (NetworkingConfig.EndpointsConfig.app_back.IPAMConfig)',
    })
    expect(await createVerdict(policy, ipam('app_default', { IPv4Address: '10.99.0.10' }))).toMatchObject({
      field: 'NetworkingConfig.EndpointsConfig.app_default.IPAMConfig',
    })
    expect(await createVerdict(policy, ipam('app_back', { LinkLocalIPs: ['169.254.0.9'] }))).toMatchObject({
      field: 'NetworkingConfig.EndpointsConfig.app_back.IPAMConfig',
    })
    expect(await createVerdict(policy, body('worker', 'busybox', {}))).toEqual({})
  })

  it('reads the body as dockerd does: case variants, top-level fields, repeats refused', async () => {
    const text = JSON.stringify(web({ Dns: ['10.0.0.53'], ExtraHosts: ['api.test:10.0.0.1'] }))
    expect(await createVerdict(policy, text.replace('"Dns":', '"dNS":'))).toEqual({})
    expect(
      await createVerdict(
        policy,
        text.replace('"Dns":["10.0.0.53"]', '"Dns":["10.0.0.53"],"dns":["203.0.113.53"]'),
      ),
    ).toMatchObject({ field: 'HostConfig.Dns', reason: expect.stringMatching(/given twice/) })
    expect(
      await createVerdict(
        policy,
        text.replace('"ExtraHosts":', '"extraHOSTS":["evil.test:203.0.113.1"],"ExtraHosts":'),
      ),
    ).toMatchObject({ field: 'HostConfig.ExtraHosts', reason: expect.stringMatching(/given twice/) })
    expect(
      await createVerdict(
        policy,
        text.replace('"Dns":["10.0.0.53"]', '"Dns":["10.0.0.53"],"Dns":["203.0.113.53"]'),
      ),
    ).toMatchObject({ field: 'body', reason: expect.stringMatching(/repeats a key/) })
    expect(await createVerdict(policy, { ...web({}), ExtraHosts: ['evil.test:203.0.113.1'] })).toMatchObject({
      field: 'ExtraHosts',
    })
    expect(await createVerdict(policy, { ...web({}), Links: ['other_db_1:db'] })).toMatchObject({
      field: 'Links',
    })
    expect(
      await createVerdict(policy, text.replace('"Ho', '"__proto__":{"Dns":["203.0.113.53"]},"Ho')),
    ).toEqual({})
  })
})
