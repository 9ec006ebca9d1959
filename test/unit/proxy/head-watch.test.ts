/**
 * The head budget's watch (head-watch.ts) on a real node:http server: it counts unfinished heads, the
 * bytes after a finished head in the same chunk included, without a 'data' listener (which would make
 * Node read the socket in JavaScript), through the parser hooks of node-http.ts. The first test fails
 * loudly when a Node upgrade removes those internals (docs/decisions.md names them).
 */
import http from 'node:http'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { headEnded, watchHeads } from '../../../src/proxy/head-watch.js'
import { createHeldBudget, type HeldBudget } from '../../../src/proxy/held-budget.js'
import { serverParserOf } from '../../../src/proxy/node-http.js'

const servers: http.Server[] = []
const clients: net.Socket[] = []

afterEach(() => {
  for (const client of clients.splice(0)) client.destroy()
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

/** A server whose connections are watched against `budget`; answers every request 200. */
async function watchedServer(
  budget: HeldBudget,
  onConnection?: (socket: net.Socket) => void,
): Promise<number> {
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, (_req, res) => res.end('ok'))
  server.prependListener('request', (req: http.IncomingMessage) => headEnded(req))
  server.on('connection', (socket: net.Socket) => {
    watchHeads(socket, budget)
    onConnection?.(socket)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as net.AddressInfo).port
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => resolve(socket))
    socket.on('error', () => {})
    socket.on('data', () => {})
    clients.push(socket)
  })
}

/** Waits until `check` holds (at most 2 s). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
}

const partialHead = 'GET /b HTTP/1.1\r\nHost: x\r\nX-Pad: ' + 'p'.repeat(60_000)

describe('head watch (head-watch.ts)', () => {
  it('has the parser hooks of node:http on this Node, so heads are watched without a data listener', async () => {
    let hooks: ReturnType<typeof serverParserOf>
    let dataListeners = -1
    const chunks: string[] = []
    const port = await watchedServer(createHeldBudget(1 << 20), (socket) => {
      hooks = serverParserOf(socket)
      dataListeners = socket.listenerCount('data')
    })
    servers[0]!.prependListener('request', () => chunks.push(String(hooks?.currentChunk())))
    const client = await connect(port)
    client.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\n')
    await until(() => chunks.length === 1)
    expect(
      hooks,
      `Node ${process.version} no longer has the parser internals head-watch.ts uses (socket.parser, ` +
        "HTTPParser.kOnExecute from '_http_common', getCurrentBuffer): the head budget has fallen back to a " +
        "'data' listener, which costs CPU per request. See docs/decisions.md, 'Node internals the proxy uses'.",
    ).toBeDefined()
    expect(chunks).toEqual(['GET /a HTTP/1.1\r\nHost: x\r\n\r\n'])
    // node:http's own listener only: another one switches Node to reading the socket in JavaScript.
    expect(dataListeners).toBe(1)
  })

  it('counts an unfinished head that arrives in pieces', async () => {
    const budget = createHeldBudget(1 << 20)
    const client = await connect(await watchedServer(budget))
    client.write(partialHead.slice(0, 30_000))
    await until(() => budget.held >= 30_000)
    client.write(partialHead.slice(30_000))
    await until(() => budget.held >= partialHead.length)
    expect(budget.held).toBe(partialHead.length)
  })

  it('counts the unfinished head that follows a finished one in the same write, and releases it when it ends', async () => {
    const budget = createHeldBudget(1 << 20)
    const client = await connect(await watchedServer(budget))
    let answers = 0
    client.on('data', (data: Buffer) => (answers += String(data).split('HTTP/1.1 200').length - 1))
    client.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\n' + partialHead)
    await until(() => answers === 1 && budget.held >= partialHead.length)
    expect(budget.held).toBe(partialHead.length)
    client.write('\r\n\r\n')
    await until(() => answers === 2)
    expect(budget.held).toBe(0)
  })

  it('does not count a request body, and counts again from the chunk after it', async () => {
    const budget = createHeldBudget(1 << 20)
    const client = await connect(await watchedServer(budget))
    let answers = 0
    client.on('data', (data: Buffer) => (answers += String(data).split('HTTP/1.1 200').length - 1))
    client.write('POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 50000\r\n\r\n' + 'b'.repeat(50_000))
    await until(() => answers === 1)
    expect(budget.held).toBe(0)
    client.write(partialHead)
    await until(() => budget.held >= partialHead.length)
    expect(budget.held).toBe(partialHead.length)
  })

  it('closes the connection that holds the most once the budget is passed', async () => {
    const budget = createHeldBudget(100_000)
    const port = await watchedServer(budget)
    const first = await connect(port)
    first.write(partialHead)
    await until(() => budget.held >= partialHead.length)
    const second = await connect(port)
    second.write(partialHead.slice(0, 50_000))
    await until(() => first.destroyed || first.readableEnded)
    expect(budget.evictions).toBe(1)
    expect(budget.held).toBe(50_000)
    void second
  })
})
