/**
 * One webhook delivery against real HTTP receivers on loopback (private addresses allowed for the test):
 * a 2xx is delivered, a redirect is a failure and is not followed, a receiver that trickles its answer or
 * a name server that never answers is cut at the one deadline, and a private receiver is refused unless
 * allowed.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deliver } from '../../../../src/server/webhooks/webhook-delivery.js'

let server: Server
let base: string
const received: Array<{ url?: string; body: string; headers: IncomingMessage['headers'] }> = []

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      received.push({ url: request.url, body, headers: request.headers })
      if (request.url === '/ok') response.writeHead(204).end()
      else if (request.url === '/redirect') response.writeHead(307, { location: '/ok' }).end()
      else if (request.url === '/big') {
        response.writeHead(200)
        response.end(Buffer.alloc(1024 * 1024, 0x61))
      } else if (request.url === '/endless') {
        response.writeHead(200)
        const chunk = Buffer.alloc(16 * 1024, 0x62)
        const pump = () => {
          while (!response.destroyed && response.write(chunk));
          if (!response.destroyed) response.once('drain', pump)
        }
        pump()
      } else if (request.url === '/trickle') {
        response.writeHead(200)
        const timer = setInterval(() => response.write('.'), 50)
        response.on('close', () => clearInterval(timer))
      } else response.writeHead(500).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const delivery = (path: string, extra: Partial<Parameters<typeof deliver>[0]> = {}) =>
  deliver({
    url: `${base}${path}`,
    body: '{"event":"x"}',
    headers: { 'x-vault-signature': 's' },
    allowPrivate: true,
    timeoutMs: 2000,
    ...extra,
  })

describe('deliver', () => {
  it('delivers the body and headers, a 2xx is success', async () => {
    expect(await delivery('/ok')).toBeNull()
    expect(received.at(-1)).toMatchObject({ url: '/ok', body: '{"event":"x"}' })
    expect(received.at(-1)!.headers).toMatchObject({ 'x-vault-signature': 's', 'content-length': '13' })
  })

  it('takes a 2xx with a large body as success, reading no more than a little of it', async () => {
    expect(await delivery('/big')).toBeNull()
  })

  it('stops reading an endless answer after a small cap instead of waiting for the deadline', async () => {
    const started = performance.now()
    expect(await delivery('/endless', { timeoutMs: 5000 })).toBeNull()
    expect(performance.now() - started).toBeLessThan(2500)
  })

  it('does not follow a redirect', async () => {
    const before = received.length
    expect(await delivery('/redirect')).toBe('HTTP 307 (redirects are not followed)')
    expect(received.slice(before).map((entry) => entry.url)).toEqual(['/redirect'])
  })

  it('reports another status', async () => {
    expect(await delivery('/fail')).toBe('HTTP 500')
  })

  it('cuts a receiver that trickles its answer at the deadline', async () => {
    const started = performance.now()
    const outcome = await delivery('/trickle', { timeoutMs: 300 })
    expect(outcome).not.toBeNull()
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it('cuts a name server that never answers at the same deadline', async () => {
    const started = performance.now()
    const outcome = await deliver({
      url: 'http://hooks.example/x',
      body: '',
      headers: {},
      allowPrivate: false,
      timeoutMs: 200,
      resolve: () => new Promise(() => undefined),
    })
    expect(outcome).toMatch(/^unresolvable: /)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it('refuses a private receiver unless private webhooks are allowed, without sending', async () => {
    const before = received.length
    expect(await delivery('/ok', { allowPrivate: false })).toMatch(/^refused: /)
    expect(received.length).toBe(before)
  })
})
