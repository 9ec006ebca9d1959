/**
 * Request bodies that reach the host, against the real private engine (issue 34): the attack that
 * rewrote a container through `POST /v1.23/containers/X/start` with a HostConfig body under the
 * `fine-grained` preset is refused, and the container inspected afterwards on the engine's own socket
 * shows none of it (not privileged, no binds, no host PID namespace).
 */
import http from 'node:http'
import type net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../src/proxy/backend.js'
import { resolveRules } from '../../src/proxy/config.js'
import { createLogger } from '../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../src/proxy/server.js'
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

async function startProxy(rules: string): Promise<{ proxy: ProxyServer; port: number }> {
  const proxy = await createProxyServer({
    rules: resolveRules({ rules }),
    backend: await createBackend({ kind: 'unix', path: engine!.socket, mode: 0o660 }),
    logger: createLogger(7, 'text', (line) => logLines.push(line)),
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
