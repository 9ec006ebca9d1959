/**
 * Hostile clients against per-client rule sets (rule-sets.ts, client-rules.ts, rule-choice.ts): real
 * sockets from different loopback addresses, real mutual TLS, real unix and TCP frontends, in front of
 * the recording fake engine. Each case says what the client tries and checks what it got: the status,
 * and that the engine never received a byte of a refused request. Rule sets are told apart by a path
 * only they allow (`GET /only-<set>`).
 */
import net from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createBackend, type Backend } from '../../../src/proxy/backend.js'
import { resolveRuleSetConfig } from '../../../src/proxy/config.js'
import { createLogger } from '../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../src/proxy/server.js'
import type { TlsMaterial } from '../../../src/proxy/config.js'
import { startRecordingEngine, type RecordingEngine } from './recording-engine.js'

let engine: RecordingEngine
let backend: Backend
const running: ProxyServer[] = []

beforeAll(async () => {
  engine = await startRecordingEngine()
  backend = await createBackend({ kind: 'unix', path: engine.socketPath, mode: 0o660 })
})

afterEach(async () => {
  await Promise.all(running.splice(0).map((proxy) => proxy.shutdown(100)))
})

afterAll(async () => {
  backend.close()
  await engine.close()
})

interface Served {
  port: number
  frontend: string
}

/** A proxy with `rules` (PROXY_RULES text) listening on `host`:0, its frontend written as `frontend`. */
async function serve(
  rules: string,
  options: { host?: string; frontend?: string; tls?: TlsMaterial } = {},
): Promise<Served> {
  const host = options.host ?? '127.0.0.1'
  const frontend = options.frontend ?? 'tcp://127.0.0.1:2375'
  const proxy = await createProxyServer({
    ruleSets: resolveRuleSetConfig({ rules }),
    frontend,
    backend,
    logger: createLogger(0, 'text'),
    tls: options.tls,
  })
  running.push(proxy)
  await new Promise<void>((resolve) => proxy.server.listen(0, host, resolve))
  return { port: (proxy.server.address() as net.AddressInfo).port, frontend }
}

/** A TCP connection to `port` on `host` from `localAddress`. */
function connectFrom(port: number, localAddress: string, host = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, localAddress }, () => resolve(socket))
    socket.on('error', reject)
  })
}

/** The status of `GET path` (and `extra` head lines) sent from `localAddress` on a fresh connection. */
async function statusFrom(port: number, localAddress: string, path: string, extra = ''): Promise<number> {
  const socket = await connectFrom(port, localAddress)
  const answer = new Promise<string>((resolve) => {
    let text = ''
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      if (text.includes('\r\n\r\n')) resolve(text)
    })
    socket.on('close', () => resolve(text))
  })
  socket.write(`GET ${path} HTTP/1.1\r\nHost: docker\r\n${extra}Connection: close\r\n\r\n`)
  const text = await answer
  socket.destroy()
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)
}

describe('a client that resets its connection', () => {
  it('is refused, not given the rule set of a client without an address (the engine never sees its POST)', async () => {
    // 127.0.0.2 gets [limited] (the built-ins only); [wide] is for every other client of this frontend.
    // The attack: the head's last line arrives together with a RST, so getpeername fails (ENOTCONN)
    // when the request is handled, and the peer address reads as undefined.
    const { port, frontend } = await serve(
      `[limited]\nclient source 127.0.0.2\n[wide]\nclient frontend tcp://127.0.0.1:2375\nPOST /containers/create\n`,
    )
    expect(frontend).toBe('tcp://127.0.0.1:2375')
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(await statusFrom(port, '127.0.0.2', '/_ping')).toBe(200)
      const socket = await connectFrom(port, '127.0.0.2')
      socket.on('error', () => {})
      socket.write('POST /containers/create HTTP/1.1\r\nHost: docker\r\n')
      await new Promise((resolve) => setTimeout(resolve, 50))
      socket.write('Content-Length: 0\r\n\r\n', () => socket.resetAndDestroy())
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(engine.raw()).not.toContain('POST')
    expect(await statusFrom(port, '127.0.0.2', '/containers/create')).toBe(403)
    expect(engine.seen.filter((line) => !line.startsWith('GET /_ping'))).toEqual([])
  })
})
