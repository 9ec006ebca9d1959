/**
 * Admission under abuse, against a fake engine: a client no rule set is for is refused at accept before
 * a byte is read, each source (peer address, distinct via 127.0.0.x) gets a share of the connection cap,
 * unfinished heads count against a global budget (the largest holders are closed), and masked answers
 * held for clients that do not read count against another; an ordinary client is served throughout.
 */
import http from 'node:http'
import net from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import { resolveRuleSetConfig } from '../../../src/proxy/config.js'
import { createLogger } from '../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../src/proxy/server.js'

const engineSocket = join(mkdtempSync(join(tmpdir(), 'proxy-admission-')), 'engine.sock')
const canary = 'canary-admission-51c0'
/** A large inspect answer (masked, so held whole). */
const bigInspect = JSON.stringify({ Config: { Env: [`A=${canary}`] }, Pad: 'x'.repeat(900_000) })
const engineSaw: string[] = []
let engine: http.Server
const proxies: ProxyServer[] = []

beforeAll(async () => {
  engine = http.createServer((req, res) => {
    engineSaw.push(`${req.method} ${req.url}`)
    req.resume()
    if (req.url!.endsWith('/big/json'))
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(bigInspect)
    else res.end('[]')
  })
  await new Promise<void>((resolve) => engine.listen(engineSocket, resolve))
})

afterAll(async () => {
  for (const proxy of proxies) await proxy.shutdown(50)
  engine.closeAllConnections()
  engine.close()
})

async function start(options: Partial<Parameters<typeof createProxyServer>[0]> = {}): Promise<number> {
  const proxy = await createProxyServer({
    ruleSets: resolveRuleSetConfig({
      rules: '[ops]\nclient source 127.0.0.0/24\npreset read-only\n',
    }),
    backend: await createBackend({ kind: 'unix', path: engineSocket, mode: 0o660 }),
    logger: createLogger(0, 'text'),
    ...options,
  })
  proxies.push(proxy)
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  return (proxy.server.address() as net.AddressInfo).port
}

/** Connects from `from`; resolves once connected. */
function connect(port: number, from: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Whether the proxy closed `socket` within `ms`. */
function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    socket.once('close', () => {
      clearTimeout(timer)
      resolve(true)
    })
    socket.resume()
  })
}

/** One ordinary request from `from`: its status, or 0 when the connection failed. */
function list(port: number, from = '127.0.0.9', path = '/v1.41/containers/json'): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, localAddress: from, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.on('error', () => resolve(0))
  })
}

describe('admission', () => {
  it('refuses a client no rule set is for at accept, before reading a byte of it', async () => {
    const port = await start()
    const socket = await connect(port, '127.0.1.7')
    const answer = await new Promise<string>((resolve) => {
      let text = ''
      socket.on('data', (chunk) => (text += chunk))
      socket.on('close', () => resolve(text))
    })
    expect(answer).toMatch(/^HTTP\/1\.1 403 /)
    expect(answer).toContain('no rule set for this client')
    expect(await list(port)).toBe(200)
  })

  it('gives each source its share of the connection cap; another source is still served', async () => {
    const port = await start({ maxConnections: 16 })
    const held = await Promise.all(Array.from({ length: 2 }, () => connect(port, '127.0.0.2')))
    const over = await connect(port, '127.0.0.2')
    expect(await closedWithin(over, 1_000)).toBe(true)
    expect(await list(port, '127.0.0.3')).toBe(200)
    for (const socket of held) socket.destroy()
  })

  it('closes the connections holding the most in unfinished heads once the budget is passed', async () => {
    const port = await start({ budgets: { headBytes: 256 * 1024, heldAnswerBytes: 1 << 20 } })
    const head = 'GET /v1.41/containers/json HTTP/1.1\r\nHost: x\r\nX-Pad: ' + 'p'.repeat(60_000)
    const flood: net.Socket[] = []
    for (let i = 0; i < 12; i++) {
      const socket = await connect(port, `127.0.0.${10 + i}`)
      socket.on('error', () => {})
      socket.write(head)
      flood.push(socket)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const closed = await Promise.all(flood.map((socket) => closedWithin(socket, 500)))
    // 256 KiB hold four 60 KB heads; the rest were closed to keep within it.
    expect(closed.filter(Boolean).length).toBeGreaterThanOrEqual(7)
    expect(await list(port)).toBe(200)
    for (const socket of flood) socket.destroy()
  })

  it('closes clients that do not read their masked answers once the budget is passed', async () => {
    const port = await start({ budgets: { headBytes: 1 << 20, heldAnswerBytes: 2_000_000 } })
    const stalled: net.Socket[] = []
    for (let i = 0; i < 12; i++) {
      const socket = await connect(port, `127.0.0.${30 + i}`)
      socket.on('error', () => {})
      socket.pause()
      // Many pipelined asks on one connection, never read: their answers pile up in the proxy.
      socket.write('GET /v1.41/containers/big/json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(8))
      stalled.push(socket)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    // until the proxy has closed one of them (its open connections, read on its side: a paused client sees
    // nothing); polled, not a fixed wait, as how fast answers pile up depends on the machine's load
    const proxy = proxies.at(-1)!
    const open = () =>
      new Promise<number>((resolve) => proxy.server.getConnections((_error, count) => resolve(count)))
    let openNow = await open()
    for (let waited = 0; openNow >= stalled.length && waited < 15_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      openNow = await open()
    }
    expect(openNow).toBeLessThan(stalled.length)
    const answer = await new Promise<string>((resolve) => {
      http.get(
        { host: '127.0.0.1', port, path: '/v1.41/containers/big/json', localAddress: '127.0.0.9' },
        (res) => {
          let body = ''
          res.on('data', (chunk) => (body += chunk))
          res.on('end', () => resolve(`${res.statusCode} ${body}`))
        },
      )
    })
    expect(answer).toMatch(/^200 /)
    expect(answer).not.toContain(canary)
    for (const socket of stalled) socket.destroy()
  })
})
