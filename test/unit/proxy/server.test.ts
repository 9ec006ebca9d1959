/**
 * The proxy server against a fake engine on a unix socket (the real engine is in test/integration):
 * canonical forwarding, refusals, smuggling shapes, upgrades with half-close, streaming, shutdown.
 */
import http from 'node:http'
import net from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import { createLogger } from '../../../src/proxy/log.js'
import type { ProxyServer } from '../../../src/proxy/server.js'
import { startProxy } from '../../helpers/start-proxy.js'

const dir = mkdtempSync(join(tmpdir(), 'proxy-unit-'))
const engineSocket = join(dir, 'engine.sock')
const seen: string[] = []
const logLines: string[] = []
let engine: http.Server
let proxy: ProxyServer
let port: number

function startFakeEngine(): Promise<void> {
  engine = http.createServer({ maxHeaderSize: 2 << 20 }, (req, res) => {
    seen.push(`${req.method} ${req.url}`)
    if (req.url?.includes('/events')) {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.write('{"first":1}\n')
      setTimeout(() => res.end('{"second":2}\n'), 300)
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Api-Version': '1.41' })
      res.end(
        JSON.stringify({
          url: req.url,
          body: Buffer.concat(chunks).toString(),
          bigHeader: req.headers['x-big']?.length,
        }),
      )
    })
  })
  engine.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    seen.push(`${req.method} ${req.url} upgrade body=${head.toString()}`)
    socket.write(
      'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n',
    )
    socket.on('error', () => socket.destroy())
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString().toUpperCase()))
    socket.on('end', () => socket.end('bye'))
  })
  return new Promise((resolve) => engine.listen(engineSocket, resolve))
}

beforeAll(async () => {
  await startFakeEngine()
  const backend = await createBackend({ kind: 'unix', path: engineSocket, mode: 0o660 })
  const logger = createLogger(7, 'text', (line) => logLines.push(line))
  ;({ proxy, port } = await startProxy(backend, { logger }))
})

afterAll(async () => {
  await proxy.shutdown(100)
  engine.close()
})

beforeEach(() => {
  seen.length = 0
  logLines.length = 0
})

function request(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>(
    (resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }))
      })
      req.on('error', reject)
      req.end(body)
    },
  )
}

function raw(text: string, { endAfterWrite = false, waitMs = 500 } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => (received += chunk))
    socket.on('error', () => resolve(received))
    socket.on('close', () => resolve(received))
    socket.write(text)
    if (endAfterWrite) socket.end()
    setTimeout(() => socket.destroy(), waitMs)
  })
}

describe('forwarding', () => {
  it('forwards the canonical path with the original query, and the engine headers back', async () => {
    const result = await request('GET', '/v1.41//containers/./x/../json?all=1&filters=%7B%7D')
    expect(result.status).toBe(200)
    expect(JSON.parse(result.body).url).toBe('/v1.41/containers/json?all=1&filters=%7B%7D')
    expect(result.headers['api-version']).toBe('1.41')
  })

  it('re-encodes what the engine must see literally', async () => {
    const result = await request('GET', '/v1.41/containers/a%20b/json')
    expect(JSON.parse(result.body).url).toBe('/v1.41/containers/a%20b/json')
  })

  it('passes request bodies, chunked or not', async () => {
    const plain = await request(
      'POST',
      '/v1.41/containers/create',
      { 'Content-Type': 'application/json' },
      '{"Image":"x"}',
    )
    expect(JSON.parse(plain.body).body).toBe('{"Image":"x"}')
    const chunked = await request(
      'POST',
      '/v1.41/exec/abc/start',
      { 'Transfer-Encoding': 'chunked' },
      'chunked-body',
    )
    expect(JSON.parse(chunked.body).body).toBe('chunked-body')
  })

  it('forwards a guarded body as the exact bytes it read, chunked or not', async () => {
    const text =
      '{ "Image" : "x",\n "HostConfig": {"Privileged": false, "CapAdd": null}, "Labels": {"é": "\\u00e9"} }'
    for (const headers of [{}, { 'Transfer-Encoding': 'chunked' }] as Record<string, string>[]) {
      const answer = await request(
        'POST',
        '/v1.41/containers/create',
        { 'Content-Type': 'application/json', ...headers },
        text,
      )
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.body).body).toBe(text)
    }
  })

  it('accepts heads up to 64 KiB (docker build sends large X-Registry-Config headers), 431 beyond', async () => {
    const result = await request('GET', '/_ping', { 'X-Big': 'a'.repeat(60_000) })
    expect(result.status).toBe(200)
    expect(JSON.parse(result.body).bigHeader).toBe(60_000)
    const over = await request('GET', '/_ping', { 'X-Big': 'a'.repeat(70_000) })
    expect(over.status).toBe(431)
  })

  it('streams chunk by chunk: the first event arrives before the engine ends the response', async () => {
    const first = await new Promise<{ chunk: string; ended: boolean }>((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/v1.41/events', agent: false }, (res) => {
        let ended = false
        res.on('end', () => (ended = true))
        res.once('data', (chunk) => {
          resolve({ chunk: String(chunk), ended })
          res.destroy()
        })
      })
    })
    expect(first).toEqual({ chunk: '{"first":1}\n', ended: false })
  })
})

describe('refusals', () => {
  it.each([
    ['DELETE', '/v1.41/containers/x', 'DELETE /v1.41/containers/x'],
    ['POST', '/v1.41/images/create?fromImage=busybox', 'POST /v1.41/images/create'],
    ['POST', '/v1.41/containers/%2e%2e/images/create', 'POST /v1.41/images/create'],
    ['PROPFIND', '/v1.41/containers/json', 'PROPFIND /v1.41/containers/json'],
  ])('%s %s: 403 with a JSON message, nothing reaches the engine', async (method, path, named) => {
    const result = await request(method, path)
    expect(result.status).toBe(403)
    expect(JSON.parse(result.body)).toEqual({ message: `vault proxy refused ${named}: no rule allows it` })
    expect(seen).toEqual([])
    expect(logLines.join('')).toMatch(
      new RegExp(
        `level=warning msg=request method=${method} path=\\S+ status=403 decision=deny client=127\\.0\\.0\\.1:\\d+ ms=`,
      ),
    )
  })

  it.each([
    ['bad escape', 'GET /_ping%zz HTTP/1.1\r\nHost: x\r\n\r\n', '400'],
    ['overlong UTF-8', 'GET /_ping%c0%ae HTTP/1.1\r\nHost: x\r\n\r\n', '400'],
    ['control character', 'GET /_ping%0aforged HTTP/1.1\r\nHost: x\r\n\r\n', '400'],
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n', '403'],
    ['CONNECT', 'CONNECT engine:2375 HTTP/1.1\r\nHost: engine:2375\r\n\r\n', '403'],
    [
      'Content-Length with Transfer-Encoding',
      'GET /_ping HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      '400',
    ],
    [
      'TE gzip, chunked',
      'POST /v1.41/containers/create HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
      '400',
    ],
    [
      'TE chunked, gzip',
      'POST /v1.41/containers/create HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n',
      '400',
    ],
    [
      'two Content-Lengths',
      'POST /v1.41/containers/create HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      '400',
    ],
    ['space before colon', 'GET /_ping HTTP/1.1\r\nHost: x\r\nX-Bad : y\r\n\r\n', '400'],
    ['headers over 1 MB', 'GET /_ping HTTP/1.1\r\n' + 'X-Huge: ' + 'a'.repeat(1_100_000) + '\r\n\r\n', '431'],
  ])('%s answers %s on its own connection and reaches nothing', async (_name, text, status) => {
    const response = await raw(text)
    expect(response.startsWith(`HTTP/1.1 ${status} `)).toBe(true)
    expect(seen).toEqual([])
    expect((await request('GET', '/_ping')).status).toBe(200)
  })

  it('escapes a forged log line', async () => {
    await raw('GET /v1.41/x%0Alevel=info%20msg=forged HTTP/1.1\r\nHost: x\r\n\r\n')
    expect(logLines.join('')).not.toMatch(/^level=info msg=forged/m)
  })

  it('decides every pipelined request on its own', async () => {
    const response = await raw(
      'GET /v1.41/containers/json HTTP/1.1\r\nHost: x\r\n\r\nDELETE /v1.41/containers/x HTTP/1.1\r\nHost: x\r\n\r\n',
    )
    expect(response).toMatch(/HTTP\/1.1 200[\s\S]*HTTP\/1.1 403/)
    expect(seen).toEqual(['GET /v1.41/containers/json'])
  })
})

describe('upgrades', () => {
  it('tunnels after a real 101, forwards the body in the head, and passes half-close both ways', async () => {
    const received = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', { allowHalfOpen: true } as never)
      let text = ''
      let sent = false
      socket.on('data', (chunk) => {
        text += chunk
        if (text.includes('\r\n\r\n') && !sent) {
          sent = true
          socket.write('abc')
          setTimeout(() => socket.end(), 100)
        }
      })
      socket.on('end', () => resolve(text))
      socket.write(
        'POST /v1.41/exec/abc123/start HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n' +
          'Content-Type: application/json\r\nContent-Length: 16\r\n\r\n{"Detach":false}',
      )
    })
    expect(received).toMatch(/^HTTP\/1.1 101 UPGRADED\r\n/)
    expect(received.endsWith('\r\n\r\nABCbye')).toBe(true)
    expect(seen).toEqual(['POST /v1.41/exec/abc123/start upgrade body={"Detach":false}'])
  })

  it('refuses an upgrade the rules do not allow', async () => {
    const response = await raw(
      'POST /v1.41/images/create HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n',
    )
    expect(response).toMatch(/^HTTP\/1.1 403 [\s\S]*vault proxy refused POST \/v1.41\/images\/create/)
    expect(seen).toEqual([])
  })

  it('does not tunnel when the engine answers 200: bytes after the request never reach the engine', async () => {
    engine.removeAllListeners('upgrade')
    try {
      const response = await raw(
        'GET /v1.41/containers/x/json HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n' +
          'DELETE /v1.41/containers/x HTTP/1.1\r\nHost: x\r\n\r\n',
      )
      expect(response).toMatch(/^HTTP\/1.1 200 /)
      expect(seen).toEqual(['GET /v1.41/containers/x/json'])
    } finally {
      await restartUpgradeHandler()
    }
  })
})

async function restartUpgradeHandler(): Promise<void> {
  await new Promise<void>((resolve) => engine.close(() => resolve()))
  engine.closeAllConnections()
  await startFakeEngine()
}

describe('engine unreachable and shutdown', () => {
  it('answers 502 with a JSON message when the engine socket does not exist', async () => {
    const backend = await createBackend({ kind: 'unix', path: join(dir, 'missing.sock'), mode: 0o660 })
    const { proxy: lonely, port: lonelyPort } = await startProxy(backend)
    const result = await new Promise<{ status: number; body: string }>((resolve) => {
      http.get({ host: '127.0.0.1', port: lonelyPort, path: '/_ping', agent: false }, (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      })
    })
    expect(result.status).toBe(502)
    expect(JSON.parse(result.body).message).toMatch(/engine is unreachable \(ENOENT\)/)
    await lonely.shutdown(100)
  })

  it('closes an open stream at the end of a bounded grace period', async () => {
    const backend = await createBackend({ kind: 'unix', path: engineSocket, mode: 0o660 })
    const { proxy: second, port: secondPort } = await startProxy(backend)
    const socket = net.connect(secondPort, '127.0.0.1')
    socket.write(
      'POST /v1.41/containers/c/attach HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n',
    )
    await new Promise((resolve) => socket.once('data', resolve))
    const closed = new Promise((resolve) => socket.on('close', resolve))
    const started = Date.now()
    await second.shutdown(300)
    await closed
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
  })
})
