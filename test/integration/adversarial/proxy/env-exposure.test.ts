/**
 * Hostile corpus against the promise that container secrets do not leave containers: a real engine
 * holds a canary environment value (a running container, a legacy link alias to it, a plugin's
 * settings), and each case is a request a client of a masking rule set sends to reach it. Property
 * checked for every case: the canary never appears in the bytes the client receives (status line,
 * headers, body, anything after it); an allowed request still gets its answer, masked. The engine answers
 * inspect chunked (Transfer-Encoding), so every masked case covers that framing too. Swarm services and
 * tasks are covered by unit cases on recorded answers: the shared test engine is not made a swarm manager.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProxySettings } from '../../../../src/proxy/config.js'
import type { ProxyServer } from '../../../../src/proxy/server.js'
import { startProxyWithSettings } from '../../../helpers/start-proxy.js'
import { engineOrNull, unavailableReason } from '../../../helpers/components.js'
import { rawExchange, type RawOutcome } from '../../../helpers/raw-client.js'

const engine = engineOrNull()
const suffix = Math.random().toString(36).slice(2, 8)
const container = `env-canary-${suffix}`
/** A container created with `--link container:db`: the engine also names `container` `/linker/db`. */
const linker = `env-linker-${suffix}`
/** An image committed from the canary container: its `Config.Env` holds the canary. */
const committed = `env-canary-image-${suffix}`
/** An image built with the canary as a build argument: `docker history` shows `|1 TOKEN=<canary> ...`. */
const built = `env-canary-built-${suffix}`
const buildDir = mkdtempSync(join(tmpdir(), 'env-build-'))
/** A plugin (created, never enabled) whose settings hold the canary: `Settings.Env`, `Config.Env`. */
const plugin = `env-canary-plugin-${suffix}`
const pluginDir = mkdtempSync(join(tmpdir(), 'env-plugin-'))
const canary = `CANARY_5f3a${suffix}`

/** The real docker client, against the engine or (`host`) a proxy in front of it. */
function docker(
  args: string[],
  host = engine!.dockerHost,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'docker',
      args,
      { env: { ...process.env, DOCKER_HOST: host, DOCKER_BUILDKIT: '0' }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

/** The real docker client through a proxy on `port`: it succeeds, the canary is nowhere, `masked` is shown. */
async function dockerThroughProxy(args: string[], port: number, masked: string): Promise<void> {
  const result = await docker(args, `tcp://127.0.0.1:${port}`)
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout + result.stderr).not.toContain(canary)
  expect(result.stdout).toContain(masked)
}

const proxies: ProxyServer[] = []

async function startProxy(settings: ProxySettings): Promise<number> {
  const { proxy, port } = await startProxyWithSettings(engine!.socket, settings)
  proxies.push(proxy)
  return port
}

/** Everything the client received, as one string. */
const received = (outcome: RawOutcome) =>
  outcome.responses.map((r) => `${r.status} ${JSON.stringify(r.headers)} ${r.body}`).join('\n') + outcome.rest

function request(method: string, target: string, headers: string[] = []): string {
  return [`${method} ${target} HTTP/1.1`, 'Host: docker', ...headers, '', ''].join('\r\n')
}

/** A hostile case: the request bytes, and the status the client must get (the canary never). */
interface ExposureCase {
  attack: string
  bytes: string
  status: number
}

describe.skipIf(!engine)(`env exposure through the proxy (${unavailableReason('engine')})`, () => {
  let readOnly: number
  /** The monitoring preset as it is (volumes allowed, masking on by default). */
  let monitoring: number
  /** management with PROXY_REDACT_ENV=on: GET,HEAD,POST on every container path. */
  let management: number
  /** A rule set that allows every GET and HEAD, masking on. */
  let everything: number

  beforeAll(async () => {
    const run = await docker([
      'run',
      '-d',
      '--name',
      container,
      '--network',
      'none',
      '--log-opt',
      'env=SECRET',
      '-e',
      `SECRET=${canary}`,
      engine!.busyboxImage,
      'sh',
      '-c',
      'echo hello; exec sleep 600',
    ])
    expect(run.stderr).toBe('')
    expect((await docker(['commit', container, `${committed}:1`])).code).toBe(0)
    writeFileSync(join(buildDir, 'Dockerfile'), `FROM ${engine!.busyboxImage}\nARG TOKEN\nRUN true\n`)
    const build = await docker([
      'build',
      '-q',
      '--network',
      'none',
      '--build-arg',
      `TOKEN=${canary}`,
      '-t',
      `${built}:1`,
      buildDir,
    ])
    expect(build.code, build.stderr).toBe(0)
    const link = ['create', '--name', linker, '--network', 'none', '--link', `${container}:db`]
    expect((await docker([...link, engine!.busyboxImage, 'true'])).stderr).toBe('')
    mkdirSync(join(pluginDir, 'rootfs'))
    const env = [{ name: 'PLUGIN_SECRET', settable: ['value'], value: canary }]
    const config = { description: 'canary', documentation: '-', entrypoint: ['true'], env }
    const pluginConfig = { ...config, interface: { socket: 'p.sock', types: ['docker.volumedriver/1.0'] } }
    writeFileSync(join(pluginDir, 'config.json'), JSON.stringify(pluginConfig))
    expect((await docker(['plugin', 'create', plugin, pluginDir])).code).toBe(0)
    expect((await docker(['plugin', 'set', plugin, `PLUGIN_SECRET=${canary}`])).code).toBe(0)
    readOnly = await startProxy({ preset: 'read-only' })
    monitoring = await startProxy({ preset: 'monitoring' })
    management = await startProxy({ preset: 'management', redactEnv: 'on' })
    everything = await startProxy({ rules: 'GET,HEAD .*', redactEnv: 'on' })
  })

  afterAll(async () => {
    for (const proxy of proxies) await proxy.shutdown(200)
    await docker(['rm', '-f', linker, container])
    await docker(['rmi', '-f', `${committed}:1`, `${built}:1`])
    rmSync(buildDir, { recursive: true, force: true })
    await docker(['plugin', 'rm', '-f', plugin])
    rmSync(pluginDir, { recursive: true, force: true })
  })

  it('the engine itself hands out the canary (the cases below could leak it)', async () => {
    const direct = await docker(['inspect', '--format', '{{json .Config.Env}}', container])
    expect(direct.stdout).toContain(`SECRET=${canary}`)
    const viaLink = await docker(['inspect', '--format', '{{json .Config.Env}}', `${linker}/db`])
    expect(viaLink.stdout).toContain(`SECRET=${canary}`)
    const settings = await docker(['plugin', 'inspect', '--format', '{{json .Settings.Env}}', plugin])
    expect(settings.stdout).toContain(`PLUGIN_SECRET=${canary}`)
    const details = await docker(['logs', '--details', container])
    expect(details.stdout).toContain(`SECRET=${canary} hello`)
    const image = await docker(['image', 'inspect', '--format', '{{json .Config.Env}}', `${committed}:1`])
    const history = await docker(['history', '--no-trunc', `${built}:1`])
    expect(history.stdout).toContain(`TOKEN=${canary}`)
    expect(image.stdout).toContain(`SECRET=${canary}`)
    const top = await docker(['top', container, 'e'])
    expect(top.stdout).toContain(`SECRET=${canary}`)
  })

  const readOnlyCases: ExposureCase[] = [
    {
      attack: 'inspect of an image committed from the container (its Config.Env)',
      bytes: request('GET', `/v1.41/images/${committed}:1/json`),
      status: 200,
    },
    {
      attack: 'export of that image (a tarball whose config holds the environment)',
      bytes: request('GET', `/v1.41/images/${committed}:1/get`),
      status: 403,
    },
    {
      attack: 'export of that image through /images/get?names=',
      bytes: request('GET', `/v1.41/images/get?names=${committed}:1`),
      status: 403,
    },
    {
      attack: 'history of an image built with the canary as a build argument (|1 TOKEN=... in CreatedBy)',
      bytes: request('GET', `/v1.41/images/${built}:1/history`),
      status: 403,
    },
    {
      attack: 'image list (kept)',
      bytes: request('GET', '/v1.41/images/json'),
      status: 200,
    },
    {
      attack: 'plain inspect (baseline: masked)',
      bytes: request('GET', `/v1.41/containers/${container}/json`),
      status: 200,
    },
    {
      attack: 'inspect with upgrade headers: the non-101 answer was relayed raw, unmasked',
      bytes: request('GET', `/v1.41/containers/${container}/json`, ['Connection: Upgrade', 'Upgrade: tcp']),
      status: 400,
    },
    {
      attack: 'top with ps_args=e: ps printed each process environment after its command',
      bytes: request('GET', `/v1.41/containers/${container}/top?ps_args=e`),
      status: 403,
    },
    {
      attack: 'top with ps_args=aux%20e (BSD e among other options)',
      bytes: request('GET', `/v1.41/containers/${container}/top?ps_args=aux%20e`),
      status: 403,
    },
    {
      attack: 'top with the key percent-encoded (ps%5Fargs), as Go decodes it',
      bytes: request('GET', `/v1.41/containers/${container}/top?ps%5Fargs=e`),
      status: 403,
    },
    {
      attack: 'top with ps_args after another parameter',
      bytes: request('GET', `/v1.41/containers/${container}/top?x=1&ps_args=e`),
      status: 403,
    },
    {
      attack: 'top with ps_args=e and upgrade headers',
      bytes: request('GET', `/v1.41/containers/${container}/top?ps_args=e`, [
        'Connection: Upgrade',
        'Upgrade: tcp',
      ]),
      status: 403,
    },
    {
      attack: 'top with ps_args=auxe (e at the end of a BSD cluster)',
      bytes: request('GET', `/v1.41/containers/${container}/top?ps_args=auxe`),
      status: 403,
    },
    {
      attack: 'top with ps_args after a semicolon (a pair separator for engines built with Go < 1.17)',
      bytes: request('GET', `/v1.41/containers/${container}/top?x=1;ps_args=e`),
      status: 403,
    },
    {
      attack: 'top with ps_args=aux (docker top NAME aux still works, no environment)',
      bytes: request('GET', `/v1.41/containers/${container}/top?ps_args=aux`),
      status: 200,
    },
    {
      attack: 'top without ps_args (docker top NAME still works)',
      bytes: request('GET', `/v1.41/containers/${container}/top`),
      status: 200,
    },
    {
      attack: 'logs with details=1: each line began with SECRET=<value> (--log-opt env=SECRET)',
      bytes: request('GET', `/v1.41/containers/${container}/logs?stdout=1&details=1`),
      status: 403,
    },
    {
      attack: 'logs with details=true, the key percent-encoded',
      bytes: request('GET', `/v1.41/containers/${container}/logs?stdout=1&det%61ils=true`),
      status: 403,
    },
    {
      attack: 'logs without details (docker logs NAME still works)',
      bytes: request('GET', `/v1.41/containers/${container}/logs?stdout=1`),
      status: 200,
    },
    {
      attack: 'HEAD of inspect (the engine routes GET only: 404, no body)',
      bytes: request('HEAD', `/v1.41/containers/${container}/json`),
      status: 404,
    },
    {
      attack: 'inspect in absolute form',
      bytes: request('GET', `http://docker/v1.41/containers/${container}/json`),
      status: 200,
    },
    {
      attack: 'inspect with doubled slashes and dot segments',
      bytes: request('GET', `//v1.41//containers/./${container}//json`),
      status: 200,
    },
    {
      attack: 'inspect with "json" percent-encoded',
      bytes: request('GET', `/v1.41/containers/${container}/%6A%73on`),
      status: 200,
    },
    {
      attack: 'inspect asking for a compressed answer (the engine does not compress)',
      bytes: request('GET', `/v1.41/containers/${container}/json`, ['Accept-Encoding: gzip']),
      status: 200,
    },
    {
      attack: 'export (refused: read-only does not name it)',
      bytes: request('GET', `/v1.41/containers/${container}/export`),
      status: 403,
    },
    {
      attack: 'archive of /proc/1/environ (refused)',
      bytes: request('GET', `/v1.41/containers/${container}/archive?path=/proc/1/environ`),
      status: 403,
    },
    {
      attack: 'exec create with env (refused)',
      bytes: request('POST', `/v1.41/containers/${container}/exec`, ['Content-Length: 0']),
      status: 403,
    },
    {
      attack: 'attach over a websocket (refused)',
      bytes: request('GET', `/v1.41/containers/${container}/attach/ws?stdout=1`, [
        'Connection: Upgrade',
        'Upgrade: websocket',
      ]),
      status: 403,
    },
  ]

  it.each(readOnlyCases)('read-only: $attack', async ({ bytes, status }) => {
    const outcome = await rawExchange(readOnly, [bytes], 1)
    expect(received(outcome)).not.toContain(canary)
    expect(outcome.responses[0]?.status).toBe(status)
    if (status === 200) expect(outcome.responses[0]!.body).toMatch(/SECRET=\*{8}|"Processes"|hello|"Created"/)
  })

  const inspectSpellings: ExposureCase[] = [
    {
      attack: 'inspect through a legacy link alias (/containers/{name:.*}/json, name "linker/db")',
      bytes: request('GET', `/v1.41/containers/${linker}/db/json`),
      status: 200,
    },
    {
      attack: 'inspect through the link alias with its slash percent-encoded',
      bytes: request('GET', `/containers/${linker}%2Fdb/json`),
      status: 200,
    },
    {
      attack: 'inspect with version /v1.41. (Moby routes /v{version:[0-9.]+})',
      bytes: request('GET', `/v1.41./containers/${container}/json`),
      status: 200,
    },
    {
      attack: 'inspect with version /v1.41.. (compares as 1.41.0.0)',
      bytes: request('GET', `/v1.41../containers/${container}/json`),
      status: 200,
    },
    {
      attack: 'inspect with a query string',
      bytes: request('GET', `/v1.41/containers/${container}/json?size=1`),
      status: 200,
    },
    {
      attack: 'inspect without a version',
      bytes: request('GET', `/containers/${container}/json`),
      status: 200,
    },
    {
      attack: 'inspect with a trailing slash',
      bytes: request('GET', `/v1.41/containers/${container}/json/`),
      status: 404,
    },
    {
      attack: 'inspect with a double-encoded slash (decoded once: a name that does not exist)',
      bytes: request('GET', `/v1.41/containers/${linker}%252Fdb/json`),
      status: 404,
    },
  ]

  it.each(inspectSpellings)('management, masking on: $attack', async ({ bytes, status }) => {
    const outcome = await rawExchange(management, [bytes], 1)
    expect(received(outcome)).not.toContain(canary)
    if (outcome.responses[0]?.status !== 403) expect(outcome.responses[0]?.status).toBe(status)
  })

  it.each(inspectSpellings)('every GET allowed, masking on: $attack', async ({ bytes, status }) => {
    const outcome = await rawExchange(everything, [bytes], 1)
    expect(received(outcome)).not.toContain(canary)
    expect(outcome.responses[0]?.status).toBe(status)
    if (status === 200) expect(outcome.responses[0]!.body).toContain('SECRET=********')
  })

  const otherAnswers: ExposureCase[] = [
    {
      attack: 'plugin list (Settings.Env, Config.Env[].Value)',
      bytes: request('GET', '/v1.41/plugins'),
      status: 200,
    },
    {
      attack: 'plugin inspect',
      bytes: request('GET', `/v1.41/plugins/${plugin}:latest/json`),
      status: 200,
    },
    {
      attack: 'plugin inspect, unversioned, short name',
      bytes: request('GET', `/plugins/${plugin}/json`),
      status: 200,
    },
    {
      attack: 'plugin list, version /v1.41.',
      bytes: request('GET', '/v1.41./plugins'),
      status: 200,
    },
  ]

  it.each(otherAnswers)('every GET allowed, masking on: $attack', async ({ bytes, status }) => {
    const outcome = await rawExchange(everything, [bytes], 1)
    expect(received(outcome)).not.toContain(canary)
    expect(outcome.responses[0]?.status).toBe(status)
    expect(outcome.responses[0]!.body).toContain('PLUGIN_SECRET=********')
  })

  it('read-only: pipelined inspects on one keep-alive connection are each masked', async () => {
    const inspect = request('GET', `/v1.41/containers/${container}/json`)
    const list = request('GET', '/v1.41/containers/json?all=1')
    const outcome = await rawExchange(readOnly, [inspect + list + inspect + inspect], 4)
    expect(outcome.responses.map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect(received(outcome)).not.toContain(canary)
    for (const i of [0, 2, 3]) expect(outcome.responses[i]!.body).toContain('SECRET=********')
  })

  it('read-only: a secret on the command line or in the healthcheck is masked there too', async () => {
    const name = `env-cmdline-${suffix}`
    const create = ['create', '--name', name, '--network', 'none', '-e', `SECRET=${canary}`]
    const healthcheck = ['--health-cmd', `test -n --password=${canary}`, '--entrypoint', 'sh']
    const command = [engine!.busyboxImage, '-c', 'exit 0', 'sh', `--token=${canary}`]
    expect((await docker([...create, ...healthcheck, ...command])).stderr).toBe('')
    try {
      const fields = '{{json .Args}} {{json .Config.Cmd}} {{json .Config.Healthcheck.Test}}'
      const direct = await docker(['inspect', '--format', fields, name])
      expect(direct.stdout.split(canary)).toHaveLength(4)
      const outcome = await rawExchange(readOnly, [request('GET', `/v1.41/containers/${name}/json`)], 1)
      expect(outcome.responses[0]?.status).toBe(200)
      expect(received(outcome)).not.toContain(canary)
      const masked = JSON.parse(outcome.responses[0]!.body)
      expect(masked.Args).toEqual(['-c', 'exit 0', 'sh', '--token=********'])
      expect(masked.Config.Cmd).toEqual(masked.Args)
      expect(masked.Config.Healthcheck.Test).toEqual(['CMD-SHELL', 'test -n --password=********'])
      // The real client through the proxy, as a dashboard's user would ask.
      await dockerThroughProxy(['inspect', name], readOnly, '--token=********')
    } finally {
      await docker(['rm', '-f', name])
    }
  })

  it('read-only: a process whose arguments a shell took from the environment shows it masked in top', async () => {
    const name = `env-top-${suffix}`
    const started = await docker([
      'run',
      '-d',
      '--name',
      name,
      '--network',
      'none',
      '-e',
      `SECRET=${canary}`,
      engine!.busyboxImage,
      'sh',
      '-c',
      'exec sh -c "sleep 600; true" "$SECRET"',
    ])
    expect(started.stderr).toBe('')
    try {
      const direct = await docker(['top', name])
      expect(direct.stdout).toContain(`sleep 600; true ${canary}`)
      for (const query of ['', '?ps_args=aux', '?ps_args=-ef']) {
        const target = `/v1.41/containers/${name}/top${query}`
        const outcome = await rawExchange(readOnly, [request('GET', target)], 1)
        expect(outcome.responses[0]?.status).toBe(200)
        expect(received(outcome)).not.toContain(canary)
        expect(outcome.responses[0]!.body).toContain('sleep 600; true ********')
      }
      // With upgrade headers the answer would be relayed raw: refused, as for inspect.
      const upgrade = ['Connection: Upgrade', 'Upgrade: tcp']
      const upgraded = await rawExchange(
        readOnly,
        [request('GET', `/v1.41/containers/${name}/top`, upgrade)],
        1,
      )
      expect(upgraded.responses[0]?.status).toBe(400)
      expect(received(upgraded)).not.toContain(canary)
      // Clients that leave while the proxy waits for the list or reads the container's environment: the
      // proxy goes on serving.
      for (const afterMs of [0, 1, 2, 5, 10, 20]) {
        const leaving = net.connect(readOnly, '127.0.0.1')
        leaving.on('error', () => {})
        leaving.write(request('GET', `/v1.41/containers/${name}/top`))
        await sleep(afterMs)
        leaving.destroy()
      }
      await sleep(200)
      expect((await rawExchange(readOnly, [request('GET', '/_ping')], 1)).responses[0]?.status).toBe(200)
      // The real client through the proxy.
      await dockerThroughProxy(['top', name], readOnly, 'sleep 600; true ********')
    } finally {
      await docker(['rm', '-f', name])
    }
  })

  it('masking on: log driver options and volume driver options (credentials) are masked', async () => {
    const name = `env-driver-${suffix}`
    const volume = `env-share-${suffix}`
    const shareOptions = ['--opt', 'type=cifs', '--opt', 'device=//127.0.0.1/share']
    const shareCredentials = ['--opt', `o=username=u,password=${canary}`]
    expect((await docker(['volume', 'create', ...shareOptions, ...shareCredentials, volume])).code).toBe(0)
    const logging = ['--log-driver', 'splunk', '--log-opt', `splunk-token=${canary}`]
    const splunk = ['--log-opt', 'splunk-url=http://127.0.0.1:9']
    const mount = `type=volume,source=${volume}-m,target=/m,volume-opt=type=cifs,volume-opt=device=//127.0.0.1/s,"volume-opt=o=password=${canary}"`
    const create = ['create', '--name', name, '--network', 'none', ...logging, ...splunk, '--mount', mount]
    const created = await docker([...create, engine!.busyboxImage, 'true'])
    expect(created.code, created.stderr).toBe(0)
    try {
      const direct = await docker(['inspect', name])
      expect(direct.stdout.split(canary).length).toBeGreaterThan(2)
      expect((await docker(['volume', 'inspect', volume])).stdout).toContain(canary)
      const inspect = await rawExchange(readOnly, [request('GET', `/v1.41/containers/${name}/json`)], 1)
      expect(inspect.responses[0]?.status).toBe(200)
      expect(received(inspect)).not.toContain(canary)
      expect(JSON.parse(inspect.responses[0]!.body).HostConfig.LogConfig.Config['splunk-token']).toBe(
        '********',
      )
      for (const target of [`/v1.41/volumes/${volume}`, '/v1.41/volumes', `/volumes/${volume}`]) {
        const outcome = await rawExchange(everything, [request('GET', target)], 1)
        expect(outcome.responses[0]?.status).toBe(200)
        expect(received(outcome)).not.toContain(canary)
      }
      // The real client through a monitoring proxy, as a dashboard's user would ask.
      await dockerThroughProxy(['volume', 'inspect', volume], monitoring, '"o": "********"')
    } finally {
      await docker(['rm', '-f', name])
      await docker(['volume', 'rm', '-f', volume, `${volume}-m`])
    }
  })

  it('read-only: an inspect answer over the cap is a clear 502, never cut JSON or the canary', async () => {
    const big = `env-big-${suffix}`
    const envFile = join(pluginDir, 'big.env')
    const lines = Array.from({ length: 20 }, (_, i) => `BIG_${i}=${canary}${'x'.repeat(60_000)}\n`)
    writeFileSync(envFile, lines.join(''))
    const created = await docker([
      'create',
      '--name',
      big,
      '--network',
      'none',
      '--env-file',
      envFile,
      engine!.busyboxImage,
    ])
    expect(created.stderr).toBe('')
    try {
      const outcome = await rawExchange(readOnly, [request('GET', `/v1.41/containers/${big}/json`)], 1)
      expect(outcome.responses[0]?.status).toBe(502)
      expect(JSON.parse(outcome.responses[0]!.body).message).toContain('larger than')
      expect(received(outcome)).not.toContain(canary)
    } finally {
      await docker(['rm', '-f', big])
    }
  })
})
