/** The client field of the proxy's log: a TCP client that reset its connection is never called `unix`. */
import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { clientOf } from '../../../src/proxy/context.js'

/** A server-side socket whose TCP client connected and reset the connection at once (RST). */
async function resetServerSide(): Promise<{ socket: net.Socket; close: () => void }> {
  return new Promise((resolve) => {
    const server = net.createServer((socket) => {
      socket.on('error', () => {})
      socket.on('close', () => resolve({ socket, close: () => server.close() }))
    })
    server.listen(0, '127.0.0.1', () => {
      const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1', () =>
        client.resetAndDestroy(),
      )
      client.on('error', () => {})
    })
  })
}

describe('clientOf', () => {
  it('gives address:port of a connected TCP client, bracketed for IPv6', async () => {
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve))
    const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1')
    const socket = await accepted
    expect(clientOf(socket, 'tcp://127.0.0.1:2375')).toBe(`127.0.0.1:${client.localPort}`)
    client.destroy()
    socket.destroy()
    server.close()
    const v6 = { remoteAddress: '::1', remotePort: 5 } as net.Socket
    expect(clientOf(v6, 'tcp://[::1]:2375')).toBe('[::1]:5')
  })

  it('a TCP client that reset before its address was read is unknown, not unix', async () => {
    const { socket, close } = await resetServerSide()
    expect(socket.remoteAddress).toBeUndefined()
    expect(clientOf(socket, 'tcp://127.0.0.1:2375')).toBe('unknown')
    close()
  })

  it('a client on a unix socket frontend is unix', () => {
    expect(clientOf({ remoteAddress: undefined } as net.Socket, 'unix:///run/proxy.sock')).toBe('unix')
  })
})
