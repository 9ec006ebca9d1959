/**
 * Issue 33 item 7: the server's connection limits, against a real server process. One loopback source
 * (127.0.0.5; the whole 127/8 is loopback, and the server sees the address a client binds) floods the
 * server with half-sent requests; another source's requests are still answered, the flood holds at
 * most its cap of sockets, and the header and request timeouts close what it holds. A trusted proxy
 * gets the larger cap a gateway's keep-alive pool needs; over TLS a stalled handshake is capped and
 * timed out the same way. Every loop is bounded in count.
 */
import { mkdtempSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as connectTls } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasOpenssl, makeSelfSigned } from '../helpers/certificates.js'
import {
  spawnVaultProcess,
  startVaultServer,
  type TestVault,
  type VaultProcess,
} from '../helpers/vault-server.js'

interface HeldSocket {
  socket: Socket
  /** Everything the server wrote before closing. */
  received(): string
  /** Resolves when the server closed it (or it failed), with the milliseconds since it connected. */
  closed: Promise<number>
  isOpen(): boolean
}

/** Opens a socket from `source` to `url` and writes `bytes` (a request the server waits on the rest of). */
function holdSocket(url: string, source: string, bytes: string): HeldSocket {
  const { hostname, port } = new URL(url)
  const socket = connect({ host: hostname, port: Number(port), localAddress: source })
  const started = Date.now()
  let text = ''
  let open = true
  socket.on('connect', () => socket.write(bytes))
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
  socket.on('error', () => undefined)
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      open = false
      resolve(Date.now() - started)
    }),
  )
  return { socket, received: () => text, closed, isOpen: () => open }
}

/** Sends one complete request from `source` on a new connection and resolves with the status line. */
function requestFrom(
  url: string,
  source: string,
  keepOpen = false,
): Promise<{ status: string; socket: Socket }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress: source })
    let text = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer to ${source} within 5 s`))
    }, 5000)
    socket.on('connect', () =>
      socket.write(
        `GET /api/v1/health HTTP/1.1\r\nHost: vault\r\nConnection: ${keepOpen ? 'keep-alive' : 'close'}\r\n\r\n`,
      ),
    )
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      if (text.includes('\r\n\r\n')) {
        clearTimeout(timer)
        resolve({ status: text.slice(0, text.indexOf('\r\n')), socket })
      }
    })
    socket.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    socket.on('close', () => {
      clearTimeout(timer)
      if (!text.includes('\r\n\r\n')) reject(new Error(`connection from ${source} closed without an answer`))
    })
  })
}

async function settleWithin<T>(promises: Promise<T>[], ms: number): Promise<void> {
  await Promise.race([Promise.all(promises), new Promise((resolve) => setTimeout(resolve, ms))])
}

const halfSent = 'GET /api/v1/health HTTP/1.1\r\nHost: vault\r\nX-Slow: '

describe('connections: per-source cap and timeouts', () => {
  let seed: TestVault
  let server: VaultProcess
  const cap = 8
  const headersTimeoutMs = 2000
  const requestTimeoutMs = 3000

  beforeAll(async () => {
    seed = await startVaultServer()
    server = await spawnVaultProcess({
      dbUrl: seed.dbUrl,
      encryptionKey: seed.encryptionKey,
      jwtSecret: seed.jwtSecret,
      // without the cap, the flood below exhausts this limit and locks every other source out
      fileLimit: 256,
      settings: {
        VAULT_CONNECTIONS_PER_SOURCE: String(cap),
        VAULT_HEADERS_TIMEOUT_MS: String(headersTimeoutMs),
        VAULT_REQUEST_TIMEOUT_MS: String(requestTimeoutMs),
      },
    })
  }, 60_000)

  afterAll(async () => {
    await server?.stop()
    await seed?.stop()
  })

  it('keeps answering another source while one floods it with half-sent requests, and holds the flood to its cap', async () => {
    const flood = Array.from({ length: 400 }, () => holdSocket(server.url, '127.0.0.5', halfSent))
    await settleWithin(
      flood.map((held) => new Promise((resolve) => held.socket.once('connect', resolve))),
      5000,
    )
    const started = Date.now()
    for (let index = 0; index < 20; index++) {
      const { status } = await requestFrom(server.url, '127.0.0.6')
      expect(status).toBe('HTTP/1.1 200 OK')
    }
    const answeredIn = Date.now() - started
    for (const deadline = Date.now() + 3000; Date.now() < deadline;) {
      if (flood.filter((held) => held.isOpen()).length <= cap) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const stillOpen = flood.filter((held) => held.isOpen())
    expect(stillOpen.length).toBe(cap)
    expect(answeredIn).toBeLessThan(headersTimeoutMs)
    // the refused ones were closed at accept: nothing was written to them
    expect(flood.filter((held) => !held.isOpen()).every((held) => held.received() === '')).toBe(true)

    const lasted = await Promise.all(stillOpen.map((held) => held.closed))
    for (const ms of lasted) expect(ms).toBeLessThan(headersTimeoutMs + 1500)
    expect(stillOpen.every((held) => held.received().startsWith('HTTP/1.1 408 '))).toBe(true)
    // its slots are free again
    expect((await requestFrom(server.url, '127.0.0.5')).status).toBe('HTTP/1.1 200 OK')
  }, 30_000)

  it('closes a request whose body never finishes after the request timeout', async () => {
    const slowBody = holdSocket(
      server.url,
      '127.0.0.9',
      'POST /api/v1/auth/token HTTP/1.1\r\nHost: vault\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    )
    const lasted = await slowBody.closed
    expect(lasted).toBeGreaterThanOrEqual(requestTimeoutMs - 100)
    expect(lasted).toBeLessThan(requestTimeoutMs + 1500)
    expect(slowBody.received()).toMatch(/^HTTP\/1\.1 408 /)
  }, 15_000)
})

describe('connections: a trusted proxy gets the larger cap', () => {
  let seed: TestVault
  let server: VaultProcess

  beforeAll(async () => {
    seed = await startVaultServer()
    server = await spawnVaultProcess({
      dbUrl: seed.dbUrl,
      encryptionKey: seed.encryptionKey,
      jwtSecret: seed.jwtSecret,
      settings: {
        VAULT_BEHIND_PROXY: '1',
        VAULT_TRUSTED_PROXIES: '127.0.0.7/32',
        VAULT_CONNECTIONS_PER_SOURCE: '4',
        VAULT_CONNECTIONS_PER_PROXY: '40',
      },
    })
  }, 60_000)

  afterAll(async () => {
    await server?.stop()
    await seed?.stop()
  })

  it("keeps a gateway's keep-alive pool open and caps any other source", async () => {
    const pool = await Promise.all(
      Array.from({ length: 30 }, () => requestFrom(server.url, '127.0.0.7', true)),
    )
    expect(pool.map((answer) => answer.status)).toEqual(Array(30).fill('HTTP/1.1 200 OK'))
    const others = await Promise.allSettled(
      Array.from({ length: 10 }, () => requestFrom(server.url, '127.0.0.8', true)),
    )
    expect(others.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(4)
    // the gateway's idle connections were all kept, and still carry requests
    expect(pool.every((answer) => !answer.socket.destroyed)).toBe(true)
    for (const outcome of others) if (outcome.status === 'fulfilled') outcome.value.socket.destroy()
    for (const answer of pool) answer.socket.destroy()
  }, 30_000)
})

describe.skipIf(!hasOpenssl)('connections over TLS: a stalled handshake is capped and timed out', () => {
  let seed: TestVault
  let server: VaultProcess
  const handshakeMs = 800

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-connections-tls-'))
    makeSelfSigned('/CN=127.0.0.1', join(dir, 'key.pem'), join(dir, 'cert.pem'))
    seed = await startVaultServer()
    server = await spawnVaultProcess({
      dbUrl: seed.dbUrl,
      encryptionKey: seed.encryptionKey,
      jwtSecret: seed.jwtSecret,
      settings: {
        VAULT_TLS_CERT: join(dir, 'cert.pem'),
        VAULT_TLS_KEY: join(dir, 'key.pem'),
        VAULT_CONNECTIONS_PER_SOURCE: '2',
        VAULT_HEADERS_TIMEOUT_MS: String(handshakeMs),
        VAULT_REQUEST_TIMEOUT_MS: String(handshakeMs * 2),
      },
    })
  }, 60_000)

  afterAll(async () => {
    await server?.stop()
    await seed?.stop()
  })

  it('keeps two silent sockets of one source for the handshake timeout, and serves another source over TLS', async () => {
    expect(server.url).toMatch(/^https:/)
    const silent = Array.from({ length: 5 }, () => holdSocket(server.url, '127.0.0.10', ''))
    for (const deadline = Date.now() + 3000; Date.now() < deadline;) {
      if (silent.filter((held) => held.isOpen()).length <= 2) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const kept = silent.filter((held) => held.isOpen())
    expect(kept).toHaveLength(2)

    const { port } = new URL(server.url)
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connectTls({
        socket: connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.11' }),
        rejectUnauthorized: false,
      })
      let text = ''
      socket.on('secureConnect', () =>
        socket.write('GET /api/v1/health HTTP/1.1\r\nHost: vault\r\nConnection: close\r\n\r\n'),
      )
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
      socket.on('error', reject)
      socket.on('close', () => resolve(text.slice(0, text.indexOf('\r\n'))))
    })
    expect(status).toBe('HTTP/1.1 200 OK')

    for (const ms of await Promise.all(kept.map((held) => held.closed)))
      expect(ms).toBeLessThan(handshakeMs + 1500)
  }, 30_000)
})
