/**
 * Rule sets against the real private engine: "read-only" does not hand out the secrets a container was
 * started with (`docker inspect` through the proxy shows `NAME=********` for a canary value the engine
 * holds), export is refused, and per-client rule sets choose by source address (clients bound to
 * distinct 127.x addresses): a dashboard gets monitoring, an updater management, a stranger nothing.
 */
import { execFile } from 'node:child_process'
import http from 'node:http'
import type net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../src/proxy/backend.js'
import { resolveRuleSetConfig, type ProxySettings } from '../../src/proxy/config.js'
import { createLogger } from '../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../src/proxy/server.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const suffix = Math.random().toString(36).slice(2, 8)
const container = `proxy-canary-${suffix}`
const canary = `canary-${suffix}-Xq7`

function docker(
  args: string[],
  dockerHost: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'docker',
      args,
      { env: { ...process.env, DOCKER_HOST: dockerHost }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

async function startProxy(settings: ProxySettings): Promise<{ proxy: ProxyServer; port: number }> {
  const backend = await createBackend({ kind: 'unix', path: engine!.socket, mode: 0o660 })
  const logger = createLogger(3, 'text', () => {})
  const proxy = await createProxyServer({ ruleSets: resolveRuleSetConfig(settings), backend, logger })
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  return { proxy, port: (proxy.server.address() as net.AddressInfo).port }
}

/** One request from a client bound to `localAddress`. */
function call(port: number, localAddress: string, method: string, path: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, localAddress, method, path, agent: false }, (res) => {
      let body = ''
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe.skipIf(!engine)(`rule sets against the real engine (${unavailableReason('engine')})`, () => {
  const proxies: ProxyServer[] = []

  beforeAll(async () => {
    const created = await docker(
      [
        'create',
        '--name',
        container,
        '--network',
        'none',
        '-e',
        `DB_PASSWORD=${canary}`,
        engine!.busyboxImage,
        'true',
      ],
      engine!.dockerHost,
    )
    expect(created.stderr).toBe('')
  })

  afterAll(async () => {
    await docker(['rm', '-f', container], engine!.dockerHost)
    for (const proxy of proxies) await proxy.shutdown(200)
  })

  it('docker inspect through read-only shows ******** where the engine holds the canary', async () => {
    const { proxy, port } = await startProxy({ preset: 'read-only' })
    proxies.push(proxy)
    const format = ['inspect', '--format', '{{json .Config.Env}}', container]
    const direct = await docker(format, engine!.dockerHost)
    expect(direct.stdout).toContain(`DB_PASSWORD=${canary}`)
    const viaProxy = await docker(format, `tcp://127.0.0.1:${port}`)
    expect(viaProxy.code).toBe(0)
    expect(viaProxy.stdout).toContain('DB_PASSWORD=********')
    const whole = await docker(['inspect', container], `tcp://127.0.0.1:${port}`)
    expect(whole.code).toBe(0)
    expect(whole.stdout + whole.stderr).not.toContain(canary)
    expect(JSON.parse(whole.stdout)[0].Name).toBe(`/${container}`)
  })

  it('export through read-only is refused with the proxy message', async () => {
    const { proxy, port } = await startProxy({ preset: 'read-only' })
    proxies.push(proxy)
    const exported = await docker(['export', container], `tcp://127.0.0.1:${port}`)
    expect(exported.code).not.toBe(0)
    expect(exported.stderr).toContain('vault proxy refused GET')
  })

  it('chooses the rule set by source address: dashboard monitoring, updater management, stranger refused', async () => {
    const { proxy, port } = await startProxy({
      rules:
        '[dashboard]\nclient source 127.0.0.2\npreset monitoring\n[updater]\nclient source 127.0.0.3\npreset management\n',
    })
    proxies.push(proxy)
    const inspect = `/v1.41/containers/${container}/json`
    const stop = `/v1.41/containers/${container}/stop`

    const dashboardInspect = await call(port, '127.0.0.2', 'GET', inspect)
    expect(dashboardInspect.status).toBe(200)
    expect(dashboardInspect.body).toContain('DB_PASSWORD=********')
    expect(dashboardInspect.body).not.toContain(canary)
    expect((await call(port, '127.0.0.2', 'POST', stop)).status).toBe(403)

    const updaterInspect = await call(port, '127.0.0.3', 'GET', inspect)
    expect(updaterInspect.body).toContain(`DB_PASSWORD=${canary}`)
    expect((await call(port, '127.0.0.3', 'POST', stop)).status).toBe(304)

    const stranger = await call(port, '127.0.0.9', 'GET', '/_ping')
    expect(stranger.status).toBe(403)
    expect(stranger.body).toContain('no rule set for this client (source 127.0.0.9')
    const cli = await docker(['ps'], `tcp://127.0.0.1:${port}`)
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toContain('no rule set for this client')
  })
})
