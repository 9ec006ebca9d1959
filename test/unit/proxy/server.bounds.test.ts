/**
 * The proxy's bounds against clients that stall or flood, with short timeouts (the defaults are 10 s for
 * heads and 30 s for bodies and unanswered upgrades): 408 for a stalled head, closed connections for a
 * stalled body or upgrade body and for an upgrade the engine never answers, 503 beyond the connection cap,
 * and pipelined requests run one at a time, in order, on one engine connection.
 */
import http from 'node:http'
import net from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import { resolveRules } from '../../../src/proxy/config.js'
import { createLogger } from '../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../src/proxy/server.js'

const engineSocket = join(mkdtempSync(join(tmpdir(), 'proxy-bounds-')), 'engine.sock')
const events: string[] = []
let active = 0
let mostActive = 0
let engineConnections = 0
/** Container listing and exec (the presets no longer allow exec). */
const listAndExec = 'GET %API_PREFIX_CONTAINERS%/json\nPOST %API_PREFIX_EXEC%/.*'
let engine: http.Server
let proxy: ProxyServer
let port: number

beforeAll(async () => {
  engine = http.createServer((req, res) => {
    active++
    mostActive = Math.max(mostActive, active)
    res.on('close', () => active--)
    req.on('close', () => {
      if (!req.complete) events.push(`${req.method} ${req.url} cut`)
    })
    if (req.url!.includes('slow-reader')) {
      req.pause()
      // twice the patient proxy's body-stall bound below
      setTimeout(() => req.resume(), 2_000)
    } else req.resume()
    req.on('end', () => {
      events.push(`${req.method} ${req.url}`)
      setTimeout(() => res.end(req.url), 2)
    })
  })
  engine.on('connection', () => engineConnections++)
  engine.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
    events.push(`${req.method} ${req.url} upgrade`)
    socket.on('error', () => socket.destroy())
    socket.resume()
  })
  await new Promise<void>((resolve) => engine.listen(engineSocket, resolve))
  proxy = await createProxyServer({
    rules: resolveRules({ rules: listAndExec }),
    backend: await createBackend({ kind: 'unix', path: engineSocket, mode: 0o660 }),
    logger: createLogger(0, 'text'),
    maxConnections: 20,
    maxConnectionsPerSource: 20,
    timeouts: { headersMs: 300, bodyStallMs: 300, upgradeAnswerMs: 300 },
  })
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  port = (proxy.server.address() as net.AddressInfo).port
})

afterAll(async () => {
  await proxy.shutdown(50)
  engine.closeAllConnections()
  engine.close()
})

beforeEach(() => {
  events.length = 0
  mostActive = 0
  engineConnections = 0
})

/** Writes `text` and collects what comes back until the proxy closes the connection. */
function untilClosed(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' })
    let received = ''
    socket.on('data', (chunk) => (received += chunk))
    socket.on('error', () => resolve(received))
    socket.on('close', () => resolve(received))
    socket.write(text)
  })
}

describe('proxy bounds', () => {
  it('answers a head that stalls with 408 and closes the connection', async () => {
    const answer = await untilClosed('GET /v1.41/containers/json HTTP/1.1\r\nHost: x\r\nX-Slow: ')
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    expect(events).toEqual([])
  })

  it('closes a connection that never sends a byte after the head timeout', async () => {
    expect(await untilClosed('')).toBe('')
    expect(events).toEqual([])
  })

  it('closes a connection whose body stalls; the engine never gets the whole request', async () => {
    const answer = await untilClosed(
      'POST /v1.41/exec/a/start HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"Detach":',
    )
    expect(answer).toBe('')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(events).toEqual(['POST /v1.41/exec/a/start cut'])
  })

  it('waits for an engine that reads a body slowly (back-pressure is not a stall)', async () => {
    const patient = await createProxyServer({
      rules: resolveRules({ rules: listAndExec }),
      backend: await createBackend({ kind: 'unix', path: engineSocket, mode: 0o660 }),
      logger: createLogger(0, 'text'),
      // 1 s, not the others' 300 ms: client, proxy and engine share this process's event loop, which a
      // loaded machine can hold up for longer than 300 ms while the client is still sending
      timeouts: { headersMs: 300, bodyStallMs: 1_000, upgradeAnswerMs: 300 },
    })
    await new Promise<void>((resolve) => patient.server.listen(0, '127.0.0.1', resolve))
    const body = Buffer.alloc(16 << 20, 'a')
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: (patient.server.address() as net.AddressInfo).port,
          method: 'POST',
          path: '/v1.41/exec/slow-reader/start',
          agent: false,
        },
        (res) => {
          res.resume()
          resolve(res.statusCode!)
        },
      )
      req.on('error', reject)
      req.end(body)
    })
    await patient.shutdown(50)
    expect(status).toBe(200)
    expect(events).toEqual(['POST /v1.41/exec/slow-reader/start'])
  })

  it('closes an upgrade whose declared body stalls', async () => {
    const answer = await untilClosed(
      'POST /v1.41/exec/a/start HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 100\r\n\r\n{',
    )
    expect(answer).toBe('')
  })

  it('closes an upgrade the engine never answers', async () => {
    const answer = await untilClosed(
      'POST /v1.41/exec/a/start HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 2\r\n\r\n{}',
    )
    expect(answer).toBe('')
    expect(events).toEqual(['POST /v1.41/exec/a/start upgrade'])
  })

  it('answers 503 beyond the connection cap, and serves again once connections close', async () => {
    const held = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect({ port, host: '127.0.0.1' }, () => resolve(socket))
          }),
      ),
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    const refused = await untilClosed('GET /v1.41/containers/json HTTP/1.1\r\nHost: x\r\n\r\n')
    expect(refused).toMatch(
      /^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*too many connections \(at most 20\)/,
    )
    for (const socket of held) socket.destroy()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const served = await untilClosed(
      'GET /v1.41/containers/json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    )
    expect(served).toMatch(/^HTTP\/1\.1 200 /)
    expect(events).toEqual(['GET /v1.41/containers/json'])
  })

  it('runs 300 pipelined requests one at a time, in order, on one engine connection', async () => {
    const requests = Array.from(
      { length: 300 },
      (_, i) => `GET /v1.41/containers/json?n=${i} HTTP/1.1\r\nHost: x\r\n\r\n`,
    )
    const answer = await untilClosed(
      requests.join('') +
        'GET /v1.41/containers/json?n=last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    )
    const order = [...answer.matchAll(/\?n=(\d+|last)/g)].map((match) => match[1])
    expect(order).toEqual([...Array.from({ length: 300 }, (_, i) => String(i)), 'last'])
    expect(mostActive).toBe(1)
    expect(engineConnections).toBeLessThanOrEqual(1)
  })
})
