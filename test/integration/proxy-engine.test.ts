/**
 * The proxy against the real private engine with the real `docker` and `docker-compose` clients
 * pointed at it (DOCKER_HOST=tcp://127.0.0.1:PORT): what the default rules allow works, what they
 * refuse fails with the proxy's message; each preset allows and refuses what it says.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../src/proxy/backend.js'
import { resolveRules } from '../../src/proxy/config.js'
import { createLogger } from '../../src/proxy/log.js'
import { presetNames, type PresetName } from '../../src/proxy/presets.js'
import { createProxyServer, type ProxyServer } from '../../src/proxy/server.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const image = engine?.busyboxImage ?? ''
const suffix = Math.random().toString(36).slice(2, 8)
const ticker = `proxy-ticker-${suffix}`
const logLines: string[] = []

interface Run {
  code: number
  stdout: string
  stderr: string
}

async function startProxy(preset?: PresetName): Promise<{ proxy: ProxyServer; port: number }> {
  const backend = await createBackend({ kind: 'unix', path: engine!.socket, mode: 0o660 })
  const logger = createLogger(7, 'text', (line) => logLines.push(line))
  const proxy = await createProxyServer({ rules: resolveRules({ preset }), backend, logger })
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  return { proxy, port: (proxy.server.address() as net.AddressInfo).port }
}

function run(
  file: string,
  args: string[],
  dockerHost: string,
  input?: string,
  timeout = 60_000,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { env: { ...process.env, DOCKER_HOST: dockerHost }, timeout, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
        resolve({ code, stdout, stderr })
      },
    )
    child.stdin!.end(input ?? '')
  })
}

/** Runs a long-lived command until its output matches, then stops it. */
function waitForOutput(
  args: string[],
  dockerHost: string,
  pattern: RegExp,
  trigger?: () => Promise<unknown>,
  input?: string,
) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn('docker', args, { env: { ...process.env, DOCKER_HOST: dockerHost } })
    if (input !== undefined) child.stdin.write(input)
    let output = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no ${pattern} in: ${output}`))
    }, 30_000)
    const onData = (chunk: Buffer) => {
      output += chunk
      if (pattern.test(output)) {
        clearTimeout(timer)
        child.kill('SIGKILL')
        resolve(output)
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    // real time on purpose: the docker CLI says nothing when its stream is attached, so the trigger
    // (whose events it must see) comes a second after it started
    if (trigger) setTimeout(() => void trigger(), 1_000)
  })
}

describe.skipIf(!engine)(
  `docker CLI through the proxy, default rules (${unavailableReason('engine')})`,
  () => {
    let proxy: ProxyServer
    let viaProxy: string
    const docker = (args: string[], input?: string) => run('docker', args, viaProxy, input)
    const direct = (args: string[]) => run('docker', args, engine!.dockerHost)

    beforeAll(async () => {
      const started = await startProxy()
      proxy = started.proxy
      viaProxy = `tcp://127.0.0.1:${started.port}`
      const result = await docker([
        'run',
        '-d',
        '--name',
        ticker,
        '--network',
        'none',
        image,
        'sh',
        '-c',
        'while true; do echo tick; sleep 0.5; done',
      ])
      expect(result.stderr).toBe('')
    })

    afterAll(async () => {
      await direct(['rm', '-f', ticker, `proxy-attach-${suffix}`])
      await proxy?.shutdown(500)
    })

    it('version, ps and inspect work', async () => {
      expect((await docker(['version', '--format', '{{.Server.APIVersion}}'])).stdout.trim()).toBe('1.41')
      expect((await docker(['ps', '--format', '{{.Names}}'])).stdout).toContain(ticker)
      const inspect = await docker(['inspect', '--format', '{{.State.Running}}', ticker])
      expect(inspect).toMatchObject({ code: 0, stdout: 'true\n' })
    })

    it('logs -f streams', async () => {
      expect(
        await waitForOutput(['logs', '-f', '--tail', '0', ticker], viaProxy, /tick\n[\s\S]*tick\n/),
      ).toContain('tick')
    })

    it('events streams, and pause/unpause work', async () => {
      const output = await waitForOutput(
        ['events', '--format', '{{.Action}}'],
        viaProxy,
        /unpause/,
        async () => {
          expect((await docker(['pause', ticker])).code).toBe(0)
          expect((await docker(['unpause', ticker])).code).toBe(0)
        },
      )
      expect(output).toMatch(/pause\n/)
    })

    it('run --rm of the busybox image', async () => {
      const result = await docker([
        'run',
        '--rm',
        '--network',
        'none',
        image,
        'sh',
        '-c',
        'echo run-$((6*7))',
      ])
      expect(result).toMatchObject({ code: 0, stdout: 'run-42\n' })
    })

    it.each([
      [['exec', ticker, 'echo', 'no-stdin'], undefined, 'no-stdin\n'],
      [['exec', '-i', ticker, 'sh', '-c', 'echo with-stdin'], undefined, 'with-stdin\n'],
      [['exec', '-i', ticker, 'cat'], 'hi\n', 'hi\n'],
    ])('exec %j', async (args, input, stdout) => {
      expect(await docker(args, input)).toMatchObject({ code: 0, stdout })
    })

    it('attach passes stdin to the container and its output back', async () => {
      const name = `proxy-attach-${suffix}`
      expect(
        (await docker(['run', '-d', '-i', '--name', name, '--network', 'none', image, 'cat'])).code,
      ).toBe(0)
      const output = await waitForOutput(
        ['attach', name],
        viaProxy,
        /hello-attach\n/,
        undefined,
        'hello-attach\n',
      )
      expect(output).toBe('hello-attach\n')
    })

    it('stop, start and restart work', async () => {
      for (const command of ['stop', 'start', 'restart']) {
        expect(
          await docker(
            [command, '-t', '1', ticker].filter(
              (arg) => command !== 'start' || (arg !== '-t' && arg !== '1'),
            ),
          ),
        ).toMatchObject({ code: 0 })
      }
      expect((await docker(['inspect', '--format', '{{.State.Running}}', ticker])).stdout).toBe('true\n')
    })

    it.each([
      [['rm', '-f', ticker], 'DELETE /v1.41/containers/' + ticker],
      [['pull', 'busybox'], 'POST /v1.41/images/create'],
      [['volume', 'rm', 'somevolume'], 'DELETE /v1.41/volumes/somevolume'],
      [['network', 'create', 'somenet'], 'POST /v1.41/networks/create'],
      [['rmi', 'busybox'], 'DELETE /v1.41/images/busybox'],
    ])('%j is refused with the proxy message', async (args, refused) => {
      const result = await docker(args)
      expect(result.code).not.toBe(0)
      expect(result.stderr).toContain(
        `Error response from daemon: vault proxy refused ${refused}: no rule allows it`,
      )
    })

    it('logs one grep-able line per request: allowed at debug, refused at warning', () => {
      const posts = logLines.filter((line) => line.includes('method=POST'))
      expect(
        posts.some((line) =>
          /level=debug .*path=\/v1.41\/containers\/\S+\/pause status=204 decision=allow client=127.0.0.1:\d+ ms=/.test(
            line,
          ),
        ),
      ).toBe(true)
      expect(
        posts.some((line) =>
          /level=warning .*path=\/v1.41\/networks\/create status=403 decision=deny/.test(line),
        ),
      ).toBe(true)
    })

    it('docker-compose (v1) ps and logs work through the proxy', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'proxy-compose-'))
      writeFileSync(
        join(dir, 'docker-compose.yml'),
        `version: "2.4"\nservices:\n  ticker:\n    image: ${image}\n    network_mode: none\n    command: ["sh", "-c", "echo compose-hello; sleep 600"]\n`,
      )
      const compose = (args: string[], host: string) =>
        run('docker-compose', ['-p', `proxy${suffix}`, '-f', join(dir, 'docker-compose.yml'), ...args], host)
      try {
        expect((await compose(['up', '-d'], engine!.dockerHost)).code).toBe(0)
        const ps = await compose(['ps'], viaProxy)
        expect(ps.code).toBe(0)
        expect(ps.stdout).toMatch(/ticker_1\s.*Up/)
        const logs = await compose(['logs', '--no-color'], viaProxy)
        expect(logs).toMatchObject({ code: 0 })
        expect(logs.stdout).toContain('compose-hello')
      } finally {
        await compose(['down', '-t', '0'], engine!.dockerHost)
      }
    })
  },
)

describe.skipIf(!engine)(`presets against the real engine (${unavailableReason('engine')})`, () => {
  const until = Math.floor(Date.now() / 1000)
  const probes: [string, string][] = [
    ['GET', '/v1.41/containers/json'],
    ['GET', `/v1.41/events?since=${until - 1}&until=${until}`],
    ['GET', '/v1.41/images/json'],
    ['GET', '/v1.41/volumes'],
    ['GET', '/v1.41/networks'],
    ['POST', '/v1.41/containers/proxy-no-such/stop'],
    ['POST', '/v1.41/containers/proxy-no-such/exec'],
    ['GET', '/v1.41/containers/proxy-no-such/export'],
    ['POST', '/v1.41/images/create?fromImage=proxy-no-such'],
    ['DELETE', '/v1.41/containers/proxy-no-such'],
  ]
  const expected: Record<PresetName, string> = {
    default: 'AAAAAAAA--',
    'read-only': 'A-A-------',
    monitoring: 'AAAAA-----',
    management: 'AAA--AAA--',
    'true-read-only': 'AAAAA-----',
    'fine-grained': 'AAA--A----',
  }

  function call(port: number, method: string, path: string) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
        let body = ''
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      req.on('error', reject)
      req.end()
    })
  }

  it.each(presetNames)('%s allows and refuses what it says', async (preset) => {
    const { proxy, port } = await startProxy(preset)
    try {
      let outcome = ''
      for (const [method, path] of probes) {
        const result = await call(port, method, path)
        const refused = result.status === 403 && result.body.includes('vault proxy refused')
        outcome += refused ? '-' : 'A'
      }
      expect(outcome).toBe(expected[preset])
      expect((await call(port, 'GET', '/_ping')).status).toBe(200)
    } finally {
      await proxy.shutdown(200)
    }
  })
})
