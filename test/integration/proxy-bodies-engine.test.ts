/**
 * Request bodies that reach the host, against the real private engine (issue 34): the attack that
 * rewrote a container through `POST /v1.23/containers/X/start` with a HostConfig body under the
 * `fine-grained` preset is refused, and the container inspected afterwards on the engine's own socket
 * shows none of it (not privileged, no binds, no host PID namespace). Then the host-escape guard behind
 * a rule that allows everything: each escape vector is refused with 403 naming the field, no byte of it
 * reaches the engine (a recording relay sits in front of dockerd: no request but a read passes it) and
 * the victim container's config, execs and state are unchanged (the engine's lists are not compared:
 * other test files create and remove containers, volumes and images on the same engine meanwhile); benign creates
 * from the real `docker` client and `docker-compose` 1.29 succeed through the same proxy.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../src/proxy/backend.js'
import { resolveRules } from '../../src/proxy/config.js'
import { createLogger } from '../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../src/proxy/server.js'
import { resolveGuardSettings } from '../../src/proxy/guard-settings.js'
import { startRecordingRelay } from '../helpers/recording-engine.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const suffix = Math.random().toString(36).slice(2, 8)
const logLines: string[] = []

interface Answer {
  status: number
  body: string
}

/** One request to `socketPath` (the engine) or to the proxy on 127.0.0.1:`port`. */
function call(
  target: { socketPath: string } | { port: number },
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const where = 'port' in target ? { host: '127.0.0.1', port: target.port } : target
    const req = http.request(
      {
        ...where,
        method,
        path,
        headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** Asks the engine itself (never through the proxy). */
const direct = (method: string, path: string, body?: string) =>
  call({ socketPath: engine!.socket }, method, path, body)

interface HostView {
  Privileged: boolean
  Binds: string[] | null
  PidMode: string
  CapAdd: string[] | null
}

async function hostConfigOf(name: string): Promise<HostView> {
  const answer = await direct('GET', `/v1.41/containers/${name}/json`)
  expect(answer.status).toBe(200)
  const { HostConfig } = JSON.parse(answer.body) as { HostConfig: HostView }
  return HostConfig
}

async function startProxy(
  rules: string,
  options: { socket?: string; allowBindFrom?: string[] } = {},
): Promise<{ proxy: ProxyServer; port: number }> {
  const proxy = await createProxyServer({
    rules: resolveRules({ rules }),
    backend: await createBackend({ kind: 'unix', path: options.socket ?? engine!.socket, mode: 0o660 }),
    logger: createLogger(7, 'text', (line) => logLines.push(line)),
    guard: resolveGuardSettings({ allowBindFrom: options.allowBindFrom }, engine!.socket),
  })
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  return { proxy, port: (proxy.server.address() as net.AddressInfo).port }
}

describe.skipIf(!engine)(`bodies that reach the host, real engine (${unavailableReason('engine')})`, () => {
  const victim = `proxy-bodies-start-${suffix}`
  let fineGrained: { proxy: ProxyServer; port: number }

  beforeAll(async () => {
    fineGrained = await startProxy('preset fine-grained')
    const created = await direct(
      'POST',
      `/v1.41/containers/create?name=${victim}`,
      JSON.stringify({
        Image: engine!.busyboxImage,
        Cmd: ['sleep', '60'],
        HostConfig: { NetworkMode: 'none' },
      }),
    )
    expect(created.status).toBe(201)
  })

  afterAll(async () => {
    await fineGrained?.proxy.shutdown(100)
    if (engine) await direct('DELETE', `/v1.41/containers/${victim}?force=1`)
  })

  it('refuses start under API 1.23 with a HostConfig body; the engine shows the container unchanged', async () => {
    const attack = JSON.stringify({
      Binds: ['/:/host', `${engine!.socket}:/var/run/docker.sock`],
      PidMode: 'host',
      CapAdd: ['SYS_ADMIN'],
      Privileged: true,
    })
    const answer = await call({ port: fineGrained.port }, 'POST', `/v1.23/containers/${victim}/start`, attack)
    expect(answer.status).toBe(403)
    expect((JSON.parse(answer.body) as { message: string }).message).toContain('takes no body')
    const state = await hostConfigOf(victim)
    expect(state.Privileged).toBe(false)
    expect(state.Binds ?? []).toEqual([])
    expect(state.PidMode).not.toBe('host')
    expect(state.CapAdd ?? []).toEqual([])
    const inspect = JSON.parse((await direct('GET', `/v1.41/containers/${victim}/json`)).body) as {
      State: { Running: boolean }
    }
    expect(inspect.State.Running).toBe(false)
  })

  it('still starts and stops the container without a body', async () => {
    expect((await call({ port: fineGrained.port }, 'POST', `/v1.23/containers/${victim}/start`)).status).toBe(
      204,
    )
    expect((await hostConfigOf(victim)).Privileged).toBe(false)
    expect(
      (await call({ port: fineGrained.port }, 'POST', `/v1.41/containers/${victim}/stop?t=0`)).status,
    ).toBe(204)
  })
})

/** One escape attempt: the request, and the field the guard must name. */
interface Vector {
  name: string
  method?: string
  target: string
  body?: string | Buffer
  contentType?: string
  chunked?: boolean
}

const hostEscape = (
  name: string,
  hostConfig: object,
  target = '/v1.41/containers/create?name=CANARY',
): Vector => ({
  name,
  target,
  body: JSON.stringify({ Image: 'vault-test/busybox:latest', Cmd: ['true'], HostConfig: hostConfig }),
})

/** A tar archive of one regular file (what `docker cp` and compose upload). */
function tarOf(name: string, content: string): Buffer {
  const header = Buffer.alloc(512)
  header.write(name, 0)
  header.write('0000644\0', 100)
  header.write('0000000\0', 108)
  header.write('0000000\0', 116)
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124)
  header.write('00000000000\0', 136)
  header.write('0', 156)
  header.write('ustar\x0000', 257)
  header.fill(' ', 148, 156)
  let sum = 0
  for (const byte of header) sum += byte
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  const data = Buffer.alloc(512)
  data.write(content)
  return Buffer.concat([header, data, Buffer.alloc(1024)])
}

const victimName = `proxy-bodies-victim-${suffix}`

const vectors: Vector[] = [
  hostEscape('Privileged', { Privileged: true }),
  {
    name: 'lower-case keys',
    target: '/v1.41/containers/create?name=CANARY',
    body: '{"Image":"vault-test/busybox:latest","hostconfig":{"privileged":true}}',
  },
  {
    name: 'a case variant after the falsy default',
    target: '/v1.41/containers/create?name=CANARY',
    body: '{"Image":"vault-test/busybox:latest","HostConfig":{"Privileged":false,"privileged":true}}',
  },
  {
    name: 'Privileged at the top level',
    target: '/v1.41/containers/create?name=CANARY',
    body: '{"Image":"vault-test/busybox:latest","Privileged":true,"Binds":["/:/host"]}',
  },
  {
    name: 'an exact repeat',
    target: '/v1.41/containers/create?name=CANARY',
    body: '{"Image":"vault-test/busybox:latest","HostConfig":{"Privileged":true,"Privileged":false}}',
  },
  {
    name: 'an escaped key',
    target: '/v1.41/containers/create?name=CANARY',
    body: '{"Image":"vault-test/busybox:latest","HostConfig":{"Privil\\u0065ged":true}}',
  },
  hostEscape('CapAdd ALL', { CapAdd: ['ALL'] }),
  hostEscape('CapAdd SYS_ADMIN as one string', { CapAdd: 'SYS_ADMIN' }),
  hostEscape('CapAdd with a long s', { CapAdd: ['\u017fys_admin'] }),
  hostEscape('CapAdd SYS_PTRACE', { CapAdd: ['CAP_SYS_PTRACE'] }),
  hostEscape('Binds of /', { Binds: ['/:/host'] }),
  hostEscape('Binds of the engine socket', { Binds: ['/var/run/docker.sock:/var/run/docker.sock'] }),
  hostEscape('Binds climbing out of /tmp', { Binds: ['/tmp/../etc:/host-etc'] }),
  hostEscape('a bind Mount of /', { Mounts: [{ Type: 'bind', Source: '/', Target: '/host' }] }),
  hostEscape('a Mount of an unknown type', { Mounts: [{ Type: 'Bind', Source: '/', Target: '/host' }] }),
  hostEscape('a local volume Mount bound to /', {
    Mounts: [
      {
        Type: 'volume',
        Target: '/host',
        VolumeOptions: { DriverConfig: { Name: 'local', Options: { type: 'none', o: 'bind', device: '/' } } },
      },
    ],
  }),
  hostEscape('VolumesFrom the victim', { VolumesFrom: [victimName] }),
  hostEscape('Devices /dev/mem', {
    Devices: [{ PathOnHost: '/dev/mem', PathInContainer: '/dev/mem', CgroupPermissions: 'rwm' }],
  }),
  hostEscape('DeviceRequests', {
    DeviceRequests: [{ Driver: 'nvidia', Count: -1, Capabilities: [['gpu']] }],
  }),
  hostEscape('DeviceCgroupRules', { DeviceCgroupRules: ['a *:* rwm'] }),
  hostEscape('host network', { NetworkMode: 'host' }),
  {
    name: 'host network with a Kelvin sign',
    target: '/v1.41/containers/create?name=CANARY',
    body: '{"Image":"vault-test/busybox:latest","HostConfig":{"Networ\u212aMode":"host"}}',
  },
  hostEscape('host PID', { PidMode: 'host' }),
  hostEscape("the victim's PID namespace", { PidMode: `container:${victimName}` }),
  hostEscape('host IPC', { IpcMode: 'host' }),
  hostEscape('host UTS', { UTSMode: 'host' }),
  hostEscape('host user namespace', { UsernsMode: 'host' }),
  hostEscape('host cgroup namespace', { CgroupnsMode: 'host' }),
  hostEscape('seccomp unconfined', { SecurityOpt: ['seccomp=unconfined'] }),
  hostEscape('apparmor unconfined', { SecurityOpt: ['apparmor:unconfined'] }),
  hostEscape('label disable', { SecurityOpt: ['label=disable'] }),
  hostEscape('systempaths unconfined', { SecurityOpt: ['systempaths=unconfined'] }),
  hostEscape('MaskedPaths []', { MaskedPaths: [] }),
  hostEscape('ReadonlyPaths []', { ReadonlyPaths: [] }),
  hostEscape('a host sysctl', { Sysctls: { 'kernel.core_pattern': '|/tmp/x' } }),
  hostEscape('CgroupParent', { CgroupParent: '/' }),
  hostEscape('a runtime', { Runtime: 'io.containerd.runc.v1' }),
  hostEscape('a create under API 1.23', { Binds: ['/:/host'] }, '/v1.23/containers/create?name=CANARY'),
  { ...hostEscape('text/plain', { Privileged: true }), contentType: 'text/plain' },
  {
    name: 'a chunked body over 1 MiB',
    target: '/v1.41/containers/create?name=CANARY',
    body: `{"Image":"vault-test/busybox:latest","Labels":{"x":"${'x'.repeat(1 << 20)}"}}`,
    chunked: true,
  },
  {
    name: 'a privileged exec',
    target: `/v1.41/containers/${victimName}/exec?x=CANARY`,
    body: '{"Cmd":["id"],"Privileged":true}',
  },
  {
    name: 'an update adding a device',
    target: `/v1.41/containers/${victimName}/update?x=CANARY`,
    body: '{"Devices":[{"PathOnHost":"/dev/mem","PathInContainer":"/dev/mem","CgroupPermissions":"rwm"}]}',
  },
  {
    name: 'an archive upload outside /run/secrets',
    method: 'PUT',
    target: `/v1.41/containers/${victimName}/archive?path=/`,
    body: tarOf('etc/CANARY', 'x'),
    contentType: 'application/x-tar',
  },
  {
    name: 'a volume bound to /',
    target: '/v1.41/volumes/create?x=CANARY',
    body: '{"Name":"canary-root","Driver":"local","DriverOpts":{"type":"none","o":"bind","device":"/"}}',
  },
  {
    name: 'a volume on a block device',
    target: '/v1.41/volumes/create?x=CANARY',
    body: '{"Name":"canary-disk","DriverOpts":{"type":"ext4","device":"/dev/sda1"}}',
  },
  { name: 'a plugin install', target: '/v1.41/plugins/pull?remote=CANARY', body: '[]' },
  {
    name: 'a swarm init',
    target: '/v1.41/swarm/init?x=CANARY',
    body: '{"ListenAddr":"127.0.0.1:2377","AdvertiseAddr":"127.0.0.1"}',
  },
  {
    name: 'a service binding /',
    target: '/v1.41/services/create?x=CANARY',
    body: '{"Name":"canary","TaskTemplate":{"ContainerSpec":{"Image":"x","Mounts":[{"Type":"bind","Source":"/","Target":"/h"}]}}}',
  },
  {
    name: 'an image load',
    target: '/v1.41/images/load?x=CANARY',
    body: tarOf('manifest.json', '[]'),
    contentType: 'application/x-tar',
  },
  {
    name: 'a build on the host network',
    target: '/v1.41/build?networkmode=host&t=canary&x=CANARY',
    body: tarOf('Dockerfile', 'FROM scratch\n'),
    contentType: 'application/x-tar',
  },
  {
    name: 'a start with a HostConfig body under API 1.23',
    target: `/v1.23/containers/${victimName}/start?x=CANARY`,
    body: '{"Binds":["/:/host"],"Privileged":true}',
  },
]

/** Sends a vector through the proxy, with the CANARY marker in a header too. */
function send(port: number, vector: Vector): Promise<Answer> {
  const body = vector.body === undefined ? undefined : Buffer.from(vector.body)
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      'X-Canary': 'CANARY',
      'Content-Type': vector.contentType ?? 'application/json',
    }
    if (body && !vector.chunked) headers['Content-Length'] = String(body.length)
    const req = http.request(
      { host: '127.0.0.1', port, method: vector.method ?? 'POST', path: vector.target, headers },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      },
    )
    req.on('error', reject)
    if (body && vector.chunked)
      for (let i = 0; i < body.length; i += 65536) req.write(body.subarray(i, i + 65536))
    req.end(vector.chunked ? undefined : body)
  })
}

/** What an escape would change on the victim container, asked on the engine's own socket. */
async function engineState(): Promise<string> {
  const value = JSON.parse((await direct('GET', `/v1.41/containers/${victimName}/json`)).body) as {
    HostConfig: unknown
    ExecIDs: unknown
    State: { Status: string }
  }
  return JSON.stringify({ host: value.HostConfig, execs: value.ExecIDs, state: value.State.Status })
}

/** The request lines that passed the recording relay and were not reads (GET, HEAD). */
function writesReceived(chunks: Buffer[]): string[] {
  // a request line may follow the previous request's body on the same line
  const lines =
    Buffer.concat(chunks)
      .toString('latin1')
      .match(/[A-Z]+ \S+ HTTP\/1\.[01]\r\n/g) ?? []
  return lines.filter((line) => !/^(?:GET|HEAD) /.test(line))
}

function docker(
  args: string[],
  host: string,
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const [file, ...rest] = args
    execFile(
      file!,
      rest,
      { env: { ...process.env, DOCKER_HOST: host }, cwd, timeout: 90_000, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

describe.skipIf(!engine)(
  `the host-escape guard against the real engine (${unavailableReason('engine')})`,
  () => {
    const received: Buffer[] = []
    const composeDir = mkdtempSync(join(tmpdir(), 'proxy-bodies-compose-'))
    let relay: net.Server
    let guarded: { proxy: ProxyServer; port: number }

    beforeAll(async () => {
      const relayPath = join(mkdtempSync(join(tmpdir(), 'proxy-bodies-relay-')), 'engine.sock')
      relay = await startRecordingRelay(relayPath, engine!.socket, received)
      guarded = await startProxy('GET,HEAD,POST,PUT,DELETE /.*', {
        socket: relayPath,
        allowBindFrom: [composeDir],
      })
      const created = await direct(
        'POST',
        `/v1.41/containers/create?name=${victimName}`,
        JSON.stringify({
          Image: engine!.busyboxImage,
          Cmd: ['sleep', '600'],
          HostConfig: { NetworkMode: 'none' },
        }),
      )
      expect(created.status).toBe(201)
      expect((await direct('POST', `/v1.41/containers/${victimName}/start`)).status).toBe(204)
    })

    afterAll(async () => {
      await guarded?.proxy.shutdown(100)
      relay?.close()
      if (engine) await direct('DELETE', `/v1.41/containers/${victimName}?force=1`)
    })

    it('has at least 40 escape vectors', () => {
      expect(vectors.length).toBeGreaterThanOrEqual(40)
    })

    it.each(vectors.map((vector) => [vector.name, vector] as const))(
      '%s: 403 from the guard, no byte reaches the engine, its state is unchanged',
      async (_name, vector) => {
        const before = await engineState()
        received.length = 0
        const answer = await send(guarded.port, vector)
        expect(answer.status, answer.body).toBe(403)
        expect((JSON.parse(answer.body) as { message: string }).message).toMatch(
          /host-escape guard: |takes no body/,
        )
        expect(Buffer.concat(received).toString('latin1')).not.toContain('CANARY')
        expect(writesReceived(received)).toEqual([])
        expect(await engineState()).toBe(before)
      },
    )

    it('lets the docker client create and run ordinary containers, and prints the refused field', async () => {
      const host = `tcp://127.0.0.1:${guarded.port}`
      const name = `proxy-bodies-benign-${suffix}`
      try {
        const created = await docker(
          ['docker', 'create', '--name', name, '--network', 'none', engine!.busyboxImage, 'true'],
          host,
        )
        expect(created.code, created.stderr).toBe(0)
        const ran = await docker(
          [
            'docker',
            'run',
            '--rm',
            '--network',
            'none',
            '--cap-add',
            'NET_BIND_SERVICE',
            '--security-opt',
            'no-new-privileges',
            '-v',
            `proxy-bodies-${suffix}:/data`,
            engine!.busyboxImage,
            'echo',
            'benign-ok',
          ],
          host,
        )
        expect(ran.code, ran.stderr).toBe(0)
        expect(ran.stdout).toContain('benign-ok')
        const privileged = await docker(
          ['docker', 'run', '--rm', '--privileged', '--network', 'none', engine!.busyboxImage, 'true'],
          host,
        )
        expect(privileged.code).not.toBe(0)
        expect(privileged.stderr).toContain('host-escape guard: HostConfig.Privileged is refused')
      } finally {
        await direct('DELETE', `/v1.41/containers/${name}?force=1`)
        await direct('DELETE', `/v1.41/volumes/proxy-bodies-${suffix}`)
      }
    })

    it('lets docker-compose 1.29 bring a stack up and down, a secret file under --allow-bind-from included', async () => {
      writeFileSync(join(composeDir, 'token.txt'), 'compose-secret\n')
      writeFileSync(
        join(composeDir, 'docker-compose.yml'),
        `version: "3.7"\nservices:\n  app:\n    image: ${engine!.busyboxImage}\n    network_mode: none\n    command: ["sh", "-c", "cat /run/secrets/token; sleep 600"]\n    cap_add: [CHOWN]\n    volumes: ["data:/data"]\n    secrets: [token]\nvolumes:\n  data: {}\nsecrets:\n  token:\n    file: ./token.txt\n`,
      )
      const host = `tcp://127.0.0.1:${guarded.port}`
      const compose = (args: string[]) =>
        docker(['docker-compose', '-p', `guard${suffix}`, ...args], host, composeDir)
      try {
        const up = await compose(['up', '-d'])
        expect(up.code, up.stderr).toBe(0)
        const ps = await compose(['ps'])
        expect(ps.stdout).toContain('Up')
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect((await compose(['logs', '--no-color'])).stdout).toContain('compose-secret')
      } finally {
        const down = await compose(['down', '-v', '-t', '0'])
        expect(down.code, down.stderr).toBe(0)
      }
    })
  },
)
