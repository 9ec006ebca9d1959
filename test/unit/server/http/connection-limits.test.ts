import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { compileTrustedProxies, trustNoProxy } from '../../../../src/server/http/client-address.js'
import {
  capSocketsPerSource,
  timeoutOptions,
  type SocketCapOptions,
} from '../../../../src/server/http/connection-limits.js'

let server: Server | undefined
const sockets: Socket[] = []

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  if (server) await new Promise((resolve) => server!.close(resolve))
  server = undefined
})

async function capped(options: Omit<SocketCapOptions, 'limits'> & { perSource: number; perProxy: number }) {
  server = createServer((_request, response) => response.end('ok'))
  capSocketsPerSource(server, {
    ...options,
    limits: { connectionsPerSource: options.perSource, connectionsPerProxy: options.perProxy },
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** Opens `count` idle sockets from `source`; resolves with how many the server kept after a round trip. */
async function openFrom(port: number, source: string, count: number): Promise<number> {
  const opened = Array.from({ length: count }, () => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: source })
    socket.on('error', () => undefined)
    sockets.push(socket)
    return socket
  })
  await Promise.all(
    opened.map(
      (socket) =>
        new Promise<void>((resolve) => {
          socket.once('close', () => resolve())
          socket.once('connect', () => {
            socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
            socket.once('data', () => resolve())
          })
        }),
    ),
  )
  return opened.filter((socket) => !socket.destroyed).length
}

describe('capSocketsPerSource', () => {
  it('keeps at most the cap of one source, counted apart from other sources, and frees slots on close', async () => {
    const port = await capped({ trust: trustNoProxy, perSource: 3, perProxy: 50, log: () => undefined })
    expect(await openFrom(port, '127.0.0.21', 6)).toBe(3)
    expect(await openFrom(port, '127.0.0.22', 2)).toBe(2)
    for (const socket of sockets.splice(0, 6)) socket.destroy()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await openFrom(port, '127.0.0.21', 4)).toBe(3)
  })

  it('gives a trusted proxy its own cap', async () => {
    const trust = compileTrustedProxies('127.0.0.23')
    const port = await capped({ trust, perSource: 2, perProxy: 10, log: () => undefined })
    expect(await openFrom(port, '127.0.0.23', 10)).toBe(10)
    expect(await openFrom(port, '127.0.0.24', 5)).toBe(2)
  })

  it('gives every peer the proxy cap when the gateway cannot be told apart', async () => {
    const port = await capped({
      trust: trustNoProxy,
      everyPeerMayBeProxy: true,
      perSource: 2,
      perProxy: 8,
      log: () => undefined,
    })
    expect(await openFrom(port, '127.0.0.25', 12)).toBe(8)
  })

  it('logs refusals as a count, at most once a minute', async () => {
    const lines: string[] = []
    let clock = 0
    const port = await capped({
      trust: trustNoProxy,
      perSource: 1,
      perProxy: 1,
      log: (line) => lines.push(line),
      now: () => clock,
    })
    await openFrom(port, '127.0.0.26', 4)
    expect(lines).toEqual([
      'vault server: refused 1 connection over the per-source cap (latest: 127.0.0.26, 1 open)',
    ])
    clock = 61_000
    await openFrom(port, '127.0.0.26', 2)
    expect(lines[1]).toBe(
      'vault server: refused 3 connections over the per-source cap (latest: 127.0.0.26, 1 open)',
    )
  })
})

describe('timeoutOptions', () => {
  it.each([
    [10_000, 30_000, 1000],
    [1500, 3000, 375],
    [100, 200, 50],
  ])(
    'checks a %i ms headers timeout (request: %i ms) every %i ms',
    (headersTimeoutMs, requestTimeoutMs, interval) => {
      expect(timeoutOptions({ headersTimeoutMs, requestTimeoutMs })).toEqual({
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        connectionsCheckingInterval: interval,
      })
    },
  )
})
