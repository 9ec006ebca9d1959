/**
 * A fake engine for the hostile corpus: a unix socket that records every raw byte of every connection
 * it accepts, then relays them to a strict node:http server that answers each request with an echo of
 * what it parsed (`{method, url, client, body}`, `client` from the X-Client header); a request whose
 * connection is cut before its end is recorded as such (the engine never acts on it). Upgrades answer
 * `101` and echo upper-cased bytes; a path containing `no101` answers an upgrade with a plain 200.
 */
import http from 'node:http'
import net from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RecordingEngine {
  /** The socket the proxy connects to. */
  socketPath: string
  /** Every raw byte the engine received, all connections, in arrival order. */
  raw(): string
  /** `METHOD url` of each request the engine's HTTP parser saw (upgrades marked). */
  seen: string[]
  /** Forgets what was recorded so far. */
  reset(): void
  close(): Promise<void>
}

/** The echo a fake-engine answer carries. */
export interface Echo {
  method: string
  url: string
  client?: string
  body: string
}

/** Starts the recording engine on a fresh unix socket. */
export async function startRecordingEngine(): Promise<RecordingEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-adversarial-'))
  const socketPath = join(dir, 'engine.sock')
  const innerPath = join(dir, 'inner.sock')
  const chunks: Buffer[] = []
  const seen: string[] = []
  const inner = http.createServer({ maxHeaderSize: 2 << 20 }, (req, res) => {
    req.on('close', () => {
      if (!req.complete) seen.push(`${req.method} ${req.url} (cut before its end)`)
    })
    const body: Buffer[] = []
    req.on('data', (chunk: Buffer) => body.push(chunk))
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`)
      const echo: Echo = {
        method: req.method!,
        url: req.url!,
        client: req.headers['x-client'] as string | undefined,
        body: Buffer.concat(body).toString('latin1'),
      }
      const text = JSON.stringify(echo)
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) })
      res.end(text)
    })
  })
  inner.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    seen.push(`${req.method} ${req.url} upgrade`)
    socket.on('error', () => socket.destroy())
    if (req.url!.includes('no101')) {
      const body = JSON.stringify({
        method: req.method,
        url: req.url,
        client: req.headers['x-client'],
        body: '',
      })
      socket.end(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      )
      return
    }
    socket.write('HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n')
    if (head.length > 0) socket.write(head.toString('latin1').toUpperCase())
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString('latin1').toUpperCase()))
    socket.on('end', () => socket.end())
  })
  await new Promise<void>((resolve) => inner.listen(innerPath, resolve))
  const relay = await startRecordingRelay(socketPath, innerPath, chunks)
  return {
    socketPath,
    raw: () => Buffer.concat(chunks).toString('latin1'),
    seen,
    reset() {
      chunks.length = 0
      seen.length = 0
    },
    async close() {
      relay.close()
      inner.closeAllConnections()
      inner.close()
    },
  }
}

/**
 * A unix socket at `socketPath` that relays every connection to `upstreamPath` (a fake or a real engine)
 * and appends each raw byte a client sends to `chunks`.
 */
export async function startRecordingRelay(
  socketPath: string,
  upstreamPath: string,
  chunks: Buffer[],
): Promise<net.Server> {
  const relay = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ path: upstreamPath, allowHalfOpen: true })
    client.on('data', (chunk: Buffer) => chunks.push(Buffer.from(chunk)))
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => relay.listen(socketPath, resolve))
  return relay
}
