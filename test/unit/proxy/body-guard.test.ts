/**
 * The host-escape guard (pure): each row is a request a rule allows, with the field the guard must name
 * when it refuses it, or null when real clients' bodies must pass (docker-py's falsy defaults, the
 * Docker CLI's create, compose's secrets upload).
 */
import { describe, expect, it } from 'vitest'
import { normalizeCapability } from '../../../src/proxy/body-guard.js'
import { judgeBody, planGuard, type GuardSettings } from '../../../src/proxy/guard.js'
import { guardKindOf } from '../../../src/proxy/guard-endpoints.js'
import { defaultGuardSettings, resolveGuardSettings } from '../../../src/proxy/guard-settings.js'

const settings: GuardSettings = resolveGuardSettings(
  { allowBindFrom: ['/srv/data', '/var/run/app'], allowCap: ['NET_ADMIN'] },
  '/var/run/docker.sock',
)

/** The field the guard refuses `body` on `method path?query` for, or null. */
function refusedField(method: string, target: string, body = '', guard = settings): string | null {
  const [path, query = ''] = target.split(/(?=\?)/)
  const plan = planGuard(guard, { method, path: path!, query, hasBody: body !== '' })
  if (plan.action === 'pass') return null
  if (plan.action === 'refuse') return plan.refusal.field
  const refusal = judgeBody(
    plan.kind,
    { query, contentType: 'application/json', body: Buffer.from(body) },
    guard,
  )
  return refusal?.field ?? null
}

const create = (hostConfig: object, top: object = {}) =>
  JSON.stringify({ Image: 'busybox', ...top, HostConfig: hostConfig })

/** A one-entry tar archive as compose's createTar writes one. */
function tarOf(name: string, type = '0', content = 'secret'): Buffer {
  const header = Buffer.alloc(512)
  header.write(name, 0)
  header.write('0000444\0', 100)
  header.write('0000000\0', 108)
  header.write('0000000\0', 116)
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124)
  header.write('00000000000\0', 136)
  header.write(type, 156)
  header.write('ustar\x0000', 257)
  header.fill(' ', 148, 156)
  let sum = 0
  for (const byte of header) sum += byte
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  const data = Buffer.alloc(512)
  data.write(content)
  return Buffer.concat([header, data, Buffer.alloc(1024)])
}

describe('the host-escape guard', () => {
  it.each<[string, string, string, string, string | null]>([
    ['privileged', 'POST', '/v1.41/containers/create', create({ Privileged: true }), 'HostConfig.Privileged'],
    [
      'privileged at the top level',
      'POST',
      '/containers/create',
      create({}, { Privileged: true }),
      'Privileged',
    ],
    ['CapAdd ALL', 'POST', '/containers/create', create({ CapAdd: ['ALL'] }), 'HostConfig.CapAdd'],
    [
      'CapAdd cap_sys_admin',
      'POST',
      '/containers/create',
      create({ CapAdd: 'cap_sys_admin' }),
      'HostConfig.CapAdd',
    ],
    [
      'CapAdd with a long s',
      'POST',
      '/containers/create',
      create({ CapAdd: ['\u017fys_admin'] }),
      'HostConfig.CapAdd',
    ],
    [
      'CapAdd allowed by --allow-cap',
      'POST',
      '/containers/create',
      create({ CapAdd: ['CAP_NET_ADMIN'] }),
      null,
    ],
    [
      'CapAdd from the default set',
      'POST',
      '/containers/create',
      create({ CapAdd: ['NET_BIND_SERVICE'] }),
      null,
    ],
    ['Binds of /', 'POST', '/containers/create', create({ Binds: ['/:/host'] }), 'HostConfig.Binds[0]'],
    [
      'Binds of the engine socket',
      'POST',
      '/containers/create',
      create({ Binds: ['/run/docker.sock:/s'] }),
      'HostConfig.Binds[0]',
    ],
    [
      'Binds of /var/run/app holding no socket',
      'POST',
      '/containers/create',
      create({ Binds: ['/var/run/app/x:/x:ro'] }),
      null,
    ],
    [
      'Binds escaping with ..',
      'POST',
      '/containers/create',
      create({ Binds: ['/srv/data/../../etc:/e'] }),
      'HostConfig.Binds[0]',
    ],
    [
      'Binds under /srv/data',
      'POST',
      '/containers/create',
      create({ Binds: ['/srv/data/app:/data:rw'] }),
      null,
    ],
    [
      'Binds of a named volume',
      'POST',
      '/containers/create',
      create({ Binds: ['dbdata:/var/lib/db'] }),
      null,
    ],
    [
      'Binds of a relative path',
      'POST',
      '/containers/create',
      create({ Binds: ['./x:/x'] }),
      'HostConfig.Binds[0]',
    ],
    [
      'a bind Mount',
      'POST',
      '/containers/create',
      create({ Mounts: [{ Type: 'bind', Source: '/etc', Target: '/e' }] }),
      'HostConfig.Mounts[0].Source',
    ],
    [
      'a Mount of an unknown type',
      'POST',
      '/containers/create',
      create({ Mounts: [{ Type: 'BIND', Source: '/', Target: '/e' }] }),
      'HostConfig.Mounts[0].Source',
    ],
    [
      'a volume Mount bound to /',
      'POST',
      '/containers/create',
      create({
        Mounts: [
          {
            Type: 'volume',
            Target: '/h',
            VolumeOptions: { DriverConfig: { Options: { type: 'none', o: 'bind', device: '/' } } },
          },
        ],
      }),
      'HostConfig.Mounts[0].VolumeOptions.DriverConfig.Options.device',
    ],
    [
      'a tmpfs Mount',
      'POST',
      '/containers/create',
      create({ Mounts: [{ Type: 'tmpfs', Target: '/t' }] }),
      null,
    ],
    [
      'VolumesFrom',
      'POST',
      '/containers/create',
      create({ VolumesFrom: ['proxy'] }),
      'HostConfig.VolumesFrom',
    ],
    [
      'Devices',
      'POST',
      '/containers/create',
      create({ Devices: [{ PathOnHost: '/dev/sda' }] }),
      'HostConfig.Devices',
    ],
    [
      'DeviceRequests',
      'POST',
      '/containers/create',
      create({ DeviceRequests: [{ Driver: 'nvidia' }] }),
      'HostConfig.DeviceRequests',
    ],
    [
      'DeviceCgroupRules',
      'POST',
      '/containers/create',
      create({ DeviceCgroupRules: ['a *:* rwm'] }),
      'HostConfig.DeviceCgroupRules',
    ],
    ['host network', 'POST', '/containers/create', create({ NetworkMode: 'host' }), 'HostConfig.NetworkMode'],
    [
      "another container's network",
      'POST',
      '/containers/create',
      create({ NetworkMode: 'container:vpn' }),
      null,
    ],
    ['host PID', 'POST', '/containers/create', create({ PidMode: 'host' }), 'HostConfig.PidMode'],
    [
      "another container's PID",
      'POST',
      '/containers/create',
      create({ PidMode: 'container:proxy' }),
      'HostConfig.PidMode',
    ],
    ['host IPC', 'POST', '/containers/create', create({ IpcMode: 'host' }), 'HostConfig.IpcMode'],
    ['host UTS', 'POST', '/containers/create', create({ UTSMode: 'host' }), 'HostConfig.UTSMode'],
    ['host userns', 'POST', '/containers/create', create({ UsernsMode: 'host' }), 'HostConfig.UsernsMode'],
    [
      'host cgroupns',
      'POST',
      '/containers/create',
      create({ CgroupnsMode: 'host' }),
      'HostConfig.CgroupnsMode',
    ],
    [
      'seccomp unconfined',
      'POST',
      '/containers/create',
      create({ SecurityOpt: ['seccomp=unconfined'] }),
      'HostConfig.SecurityOpt',
    ],
    [
      'seccomp:unconfined',
      'POST',
      '/containers/create',
      create({ SecurityOpt: ['seccomp:unconfined'] }),
      'HostConfig.SecurityOpt',
    ],
    [
      'apparmor unconfined',
      'POST',
      '/containers/create',
      create({ SecurityOpt: ['apparmor=unconfined'] }),
      'HostConfig.SecurityOpt',
    ],
    [
      'label disable',
      'POST',
      '/containers/create',
      create({ SecurityOpt: ['label=disable'] }),
      'HostConfig.SecurityOpt',
    ],
    [
      'label type spc_t',
      'POST',
      '/containers/create',
      create({ SecurityOpt: ['label=type:spc_t'] }),
      'HostConfig.SecurityOpt',
    ],
    [
      'systempaths unconfined',
      'POST',
      '/containers/create',
      create({ SecurityOpt: ['systempaths=unconfined'] }),
      'HostConfig.SecurityOpt',
    ],
    [
      'no-new-privileges',
      'POST',
      '/containers/create',
      create({ SecurityOpt: ['no-new-privileges:true'] }),
      null,
    ],
    ['MaskedPaths []', 'POST', '/containers/create', create({ MaskedPaths: [] }), 'HostConfig.MaskedPaths'],
    [
      'a host sysctl',
      'POST',
      '/containers/create',
      create({ Sysctls: { 'kernel.core_pattern': '|/x' } }),
      'HostConfig.Sysctls',
    ],
    [
      'a namespaced sysctl',
      'POST',
      '/containers/create',
      create({ Sysctls: { 'net.ipv4.ip_forward': '1' } }),
      null,
    ],
    ['CgroupParent', 'POST', '/containers/create', create({ CgroupParent: '/' }), 'HostConfig.CgroupParent'],
    ['a runtime', 'POST', '/containers/create', create({ Runtime: 'kata' }), 'HostConfig.Runtime'],
    [
      'case-folded keys',
      'POST',
      '/containers/create',
      '{"hostconfig":{"privileged":true}}',
      'HostConfig.Privileged',
    ],
    [
      'a key repeated',
      'POST',
      '/containers/create',
      '{"HostConfig":{"Privileged":true,"Privileged":false}}',
      'body',
    ],
    ['not JSON', 'POST', '/containers/create', '{"HostConfig":', 'body'],
    [
      "docker-py's falsy defaults",
      'POST',
      '/v1.41/containers/create',
      create({
        Privileged: false,
        CapAdd: null,
        Binds: [],
        VolumesFrom: [],
        NetworkMode: 'none',
        Devices: [],
        SecurityOpt: null,
      }),
      null,
    ],
    ['a create without a body', 'POST', '/containers/create', '', null],
    ['a privileged exec', 'POST', '/containers/web/exec', '{"Cmd":["sh"],"Privileged":true}', 'Privileged'],
    ['an exec', 'POST', '/v4.0/libpod/containers/web/exec', '{"Cmd":["sh"],"Privileged":false}', null],
    [
      'an update adding a device',
      'POST',
      '/containers/web/update',
      '{"Devices":[{"PathOnHost":"/dev/mem"}]}',
      'Devices',
    ],
    ['an update of memory', 'POST', '/containers/web/update', '{"Memory":1000000}', null],
    [
      'a volume bound to /',
      'POST',
      '/volumes/create',
      '{"Name":"v","DriverOpts":{"type":"none","o":"bind","device":"/"}}',
      'DriverOpts.device',
    ],
    [
      'a volume on a block device',
      'POST',
      '/volumes/create',
      '{"DriverOpts":{"type":"ext4","device":"/dev/sda1"}}',
      'DriverOpts.device',
    ],
    [
      'an NFS volume',
      'POST',
      '/volumes/create',
      '{"DriverOpts":{"type":"nfs","o":"addr=127.0.0.1","device":":/x"}}',
      null,
    ],
    [
      'a libpod volume bound to /',
      'POST',
      '/v4.0/libpod/volumes/create',
      '{"Options":{"o":"bind","device":"/"}}',
      'Options.device',
    ],
    [
      'a service bind mount',
      'POST',
      '/services/create',
      '{"TaskTemplate":{"ContainerSpec":{"Mounts":[{"Type":"bind","Source":"/"}]}}}',
      'TaskTemplate.ContainerSpec.Mounts[0].Source',
    ],
    [
      'a service capability',
      'POST',
      '/services/x/update',
      '{"TaskTemplate":{"ContainerSpec":{"CapabilityAdd":["CAP_SYS_ADMIN"]}}}',
      'TaskTemplate.ContainerSpec.CapabilityAdd',
    ],
    [
      'a service on the host network',
      'POST',
      '/services/create',
      '{"TaskTemplate":{"Networks":[{"Target":"host"}]}}',
      'TaskTemplate.Networks',
    ],
    [
      'a plugin service',
      'POST',
      '/services/create',
      '{"TaskTemplate":{"Runtime":"plugin","PluginSpec":{"Name":"x"}}}',
      'TaskTemplate.Runtime',
    ],
    ['a build on the host network', 'POST', '/build?networkmode=HOST', '', 'networkmode'],
    ['a build', 'POST', '/build?t=x&networkmode=none', '', null],
    ['an image load', 'POST', '/images/load', '', 'endpoint'],
    ['an image import', 'POST', '/images/create?fromSrc=-', '', 'endpoint'],
    ['an image pull', 'POST', '/images/create?fromImage=busybox&tag=latest', '', null],
    ['a plugin install', 'POST', '/plugins/pull?remote=x', '', 'endpoint'],
    ['a plugin set', 'POST', '/plugins/x/set', '["mount.source=/"]', 'endpoint'],
    ['a swarm join', 'POST', '/swarm/join', '{}', 'endpoint'],
    ['a libpod create', 'POST', '/v4.0/libpod/containers/create', '{}', 'endpoint'],
    [
      'a legacy attach with a HostConfig',
      'POST',
      '/v1.23/containers/x/attach',
      '{"Privileged":true}',
      'Privileged',
    ],
    ['a legacy exec start', 'POST', '/v1.23/exec/x/start', '{"Detach":false,"Tty":false}', null],
  ])('%s', (_name, method, target, body, field) => {
    expect(refusedField(method, target, body)).toBe(field)
  })

  it.each<[string, string, Buffer, string | null]>([
    ["compose's environment secret", '/', tarOf('/run/secrets/db_password'), null],
    ['a secret under /run/secrets', '/run/secrets', tarOf('token'), null],
    ['a file elsewhere', '/', tarOf('etc/cron.d/x'), 'archive'],
    ['a climb out of /run/secrets', '/run/secrets', tarOf('../../etc/passwd'), 'archive'],
    ['a symlink', '/run/secrets', tarOf('link', '2'), 'archive'],
    [
      'a compressed archive',
      '/run/secrets',
      Buffer.from([0x1f, 0x8b, 8, 0, ...Buffer.alloc(600)]),
      'archive',
    ],
  ])('archive upload: %s', (_name, path, archive, field) => {
    const refusal = judgeBody(
      'archive-upload',
      { query: `?path=${encodeURIComponent(path)}`, body: archive },
      settings,
    )
    expect(refusal?.field ?? null).toBe(field)
  })

  it('refuses a body that is not application/json', () => {
    const body = Buffer.from(create({}))
    expect(
      judgeBody('container-create', { query: '', contentType: 'text/plain', body }, settings)?.field,
    ).toBe('Content-Type')
    expect(
      judgeBody(
        'container-create',
        { query: '', contentType: 'application/json; charset=utf-8', body },
        settings,
      ),
    ).toBeNull()
  })

  it('passes everything with --guard off', () => {
    const off = { ...defaultGuardSettings, enabled: false }
    expect(refusedField('POST', '/containers/create', create({ Privileged: true }), off)).toBeNull()
    expect(refusedField('POST', '/plugins/pull', '', off)).toBeNull()
  })

  it('maps endpoints to guard kinds on canonical paths', () => {
    expect(guardKindOf('POST', '/v1.41/containers/create/')).toBe('container-create')
    expect(guardKindOf('PUT', '/v4.0/libpod/containers/x/archive')).toBe('archive-upload')
    expect(guardKindOf('GET', '/v1.23/containers/json')).toBeUndefined()
    expect(guardKindOf('POST', '/v1.41/containers/x/attach')).toBeUndefined()
  })

  it.each([
    ['sys_admin', 'SYS_ADMIN'],
    ['CAP_NET_ADMIN', 'NET_ADMIN'],
    ['\u017fys_admin', 'SYS_ADMIN'],
    ['ﬀ', 'ﬀ'],
  ])('normalises capability %s as dockerd does', (name, expected) => {
    expect(normalizeCapability(name)).toBe(expected)
  })
})
