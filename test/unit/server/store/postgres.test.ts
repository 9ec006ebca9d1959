import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { storeFaultOf } from '../../../../src/server/store/faults.js'
import { defaultConnectTimeoutMs, openPostgres } from '../../../../src/server/store/postgres.js'

/** A peer that accepts TCP connections and never says a word, as a database host behind a dead route does. */
async function silentPeer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

describe('openPostgres: a database that never answers', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup()
  })

  it('gives up on a connection after its connect timeout and the failure is a 503 fault, not a hang', async () => {
    const peer = await silentPeer()
    cleanups.push(peer.close)
    const password = 'CANARY-pg-connect-timeout-51c2'
    const driver = openPostgres(`postgres://vault:${password}@127.0.0.1:${peer.port}/vault`, {
      connectTimeoutMs: 300,
    })
    cleanups.push(() => driver.close().catch(() => undefined))
    const started = performance.now()
    const error = await driver
      .transaction(async (tx) => tx.all('SELECT 1', []))
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
    const elapsed = performance.now() - started
    expect(error).toBeInstanceOf(Error)
    expect(elapsed).toBeGreaterThanOrEqual(250)
    expect(elapsed).toBeLessThan(5_000)
    const fault = storeFaultOf(error, 'postgres')
    expect(fault?.apiCode).toBe('database_unavailable')
    expect(JSON.stringify(fault)).not.toContain(password)
  })

  it('waits 10 s for a connection by default', () => {
    expect(defaultConnectTimeoutMs).toBe(10_000)
  })
})
