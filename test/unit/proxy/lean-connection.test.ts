/**
 * The lean client path (lean-connection.ts, lean-reply.ts) on real sockets: ordinary requests are served
 * by it, answered as node:http answers (Date, keep-alive, Content-Length or chunked framing, no body for
 * HEAD); anything else, and anything llhttp refuses, reaches a real node:http server whole, from the
 * request's first byte, even when its head came in pieces or followed lean requests on the connection.
 */
import http from 'node:http'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createHeldBudget, type HeldBudget } from '../../../src/proxy/held-budget.js'
import { leanPath } from '../../../src/proxy/lean-connection.js'
import type { LeanReply } from '../../../src/proxy/lean-reply.js'
import { HTTPParser, parserMethods } from '../../../src/proxy/node-http.js'
import { rawExchange } from '../../helpers/raw-client.js'

const servers: net.Server[] = []

afterEach(() => {
  for (const server of servers.splice(0)) {
    server.close()
    if (server instanceof http.Server) server.closeAllConnections()
  }
})

interface Started {
  port: number
  /** Requests the lean path served, as `METHOD url`. */
  lean: string[]
  /** Bytes handed to node:http, per hand-over. */
  handed: number[]
}

type Answer = (req: { method?: string; url?: string }, res: LeanReply) => void

/** Answers `lean METHOD url` with a Content-Length. */
const plainAnswer: Answer = (req, res) => {
  const body = `lean ${req.method} ${req.url}`
  res.writeHead(200, undefined, ['Content-Length', String(body.length)])
  res.end(body)
}

/** A listener whose connections go to the lean path; what it hands off, a node:http server answers. */
async function start(
  answer: Answer = plainAnswer,
  budget?: HeldBudget,
  /** Serve a connection once its first bytes came, as admission.ts does (else at once). */
  onFirstRead = false,
): Promise<Started> {
  const started: Started = { port: 0, lean: [], handed: [] }
  const node = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')))
    req.on('end', () => res.end(`node ${req.method} ${req.url} ${body}`))
  })
  servers.push(node)
  const lean = leanPath({
    parser: HTTPParser!,
    methods: parserMethods!,
    reasons: http.STATUS_CODES,
    maxHeadBytes: 64 * 1024,
    keepAliveMs: 5_000,
    heads: budget,
    serve(req, res) {
      started.lean.push(`${req.method} ${req.url}`)
      answer(req, res)
    },
    handOff(socket, held) {
      started.handed.push(held)
      node.emit('connection', socket)
    },
  })
  const listener = net.createServer({ allowHalfOpen: true }, (socket) => {
    if (onFirstRead) socket.once('readable', () => lean.serve(socket))
    else lean.serve(socket)
  })
  servers.push(listener)
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  started.port = (listener.address() as net.AddressInfo).port
  return started
}

/** Writes `parts` 30 ms apart (so that each is read on its own), then reads the answers' bodies. */
async function inPieces(port: number, parts: readonly string[]): Promise<string[]> {
  const socket = net.connect(port, '127.0.0.1')
  let text = ''
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
  for (const part of parts) {
    await new Promise((resolve) => setTimeout(resolve, 30))
    socket.write(part)
  }
  await new Promise((resolve) => setTimeout(resolve, 200))
  socket.destroy()
  const bodies: string[] = []
  while (text.length > 0) {
    const end = text.indexOf('\r\n\r\n')
    const length = /content-length: (\d+)/i.exec(text.slice(0, end))
    if (end === -1 || !length) break
    bodies.push(text.slice(end + 4, end + 4 + Number(length[1])))
    text = text.slice(end + 4 + Number(length[1]))
  }
  return bodies
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`

describe('lean client path (lean-connection.ts)', () => {
  it('serves ordinary requests itself, one after another on a keep-alive connection, as node:http frames them', async () => {
    const started = await start()
    const outcome = await rawExchange(started.port, [get('/a') + get('/b'), get('/c?x=1')], 3)
    expect(outcome.responses.map((response) => response.body)).toEqual([
      'lean GET /a',
      'lean GET /b',
      'lean GET /c?x=1',
    ])
    expect(started.handed).toEqual([])
    const headers = outcome.responses[0]!.headers
    expect(headers.connection).toBe('keep-alive')
    expect(headers['keep-alive']).toBe('timeout=5')
    expect(new Date(headers.date!).getTime()).toBeGreaterThan(Date.now() - 10_000)
    expect(outcome.closed).toBe(false)
  })

  it('hands a head cut across reads to node:http whole', async () => {
    const started = await start()
    const bodies = await inPieces(started.port, [
      get('/first'),
      'GET /split HT',
      'TP/1.1\r\nHo',
      'st: x\r\n\r\n',
    ])
    expect(bodies).toEqual(['lean GET /first', 'node GET /split '])
    expect(started.handed).toEqual(['GET /split HT'.length])
  })

  it('hands a connection whose first read holds no whole head to node:http, and serves one whose first read does', async () => {
    const started = await start(plainAnswer, undefined, true)
    const bodies = await inPieces(started.port, ['GET /slow HTTP/1.1\r\nHo', 'st: x\r\n\r\n'])
    expect(bodies).toEqual(['node GET /slow '])
    expect(started.handed).toEqual(['GET /slow HTTP/1.1\r\nHo'.length])
    const whole = await inPieces(started.port, [get('/a'), get('/b')])
    expect(whole).toEqual(['lean GET /a', 'lean GET /b'])
    expect(started.lean).toEqual(['GET /a', 'GET /b'])
  })

  it.each([
    ['a body', 'POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello', 'node POST /p hello'],
    [
      'a chunked body',
      'POST /p HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n',
      'node POST /p hi',
    ],
    [
      'Expect',
      'POST /p HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi',
      'node POST /p hi',
    ],
    ['HTTP/1.0', 'GET /old HTTP/1.0\r\nHost: x\r\n\r\n', 'node GET /old '],
    ['Connection: close', 'GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'node GET /c '],
    ['two Hosts', 'GET /h HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n', 'node GET /h '],
  ])('hands a request with %s to node:http whole', async (_shape, request, body) => {
    const started = await start()
    const outcome = await rawExchange(started.port, [request], 1)
    const finals = outcome.responses.filter((response) => response.status >= 200)
    expect(finals.map((response) => response.body)).toEqual([body])
    expect(started.lean).toEqual([])
    expect(started.handed).toEqual([request.length])
  })

  it.each([
    ['no Host', 'GET /n HTTP/1.1\r\n\r\n', 400],
    ['a NUL in the head', 'GET /n HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n', 400],
    ['an upgrade', 'GET /u HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n', 200],
  ])("leaves %s to node:http's own answer", async (_shape, request, status) => {
    const started = await start()
    const outcome = await rawExchange(started.port, [request], 1)
    expect(outcome.responses.map((response) => response.status)).toEqual([status])
    expect(started.lean).toEqual([])
    expect(started.handed).toEqual([request.length])
  })

  it('hands over from the first byte of a head that came in pieces, after lean requests, and node:http keeps the connection', async () => {
    const started = await start()
    const parts = [
      get('/first'),
      'POST /p HTTP/1.1\r\nHo',
      'st: x\r\nContent-Le',
      'ngth: 5\r\n\r\nhel',
      'lo' + get('/after'),
    ]
    expect(await inPieces(started.port, parts)).toEqual([
      'lean GET /first',
      'node POST /p hello',
      'node GET /after ',
    ])
    expect(started.lean).toEqual(['GET /first'])
  })

  it('serves pipelined requests in order, the next only once the answer before it was sent', async () => {
    const order: string[] = []
    const started = await start((req, res) => {
      order.push(`start ${req.url}`)
      const answer = () => {
        order.push(`answer ${req.url}`)
        plainAnswer(req, res)
      }
      if (req.url === '/slow') setTimeout(answer, 50)
      else answer()
    })
    const outcome = await rawExchange(started.port, [get('/slow') + get('/fast')], 2)
    expect(outcome.responses.map((response) => response.body)).toEqual(['lean GET /slow', 'lean GET /fast'])
    expect(order).toEqual(['start /slow', 'answer /slow', 'start /fast', 'answer /fast'])
  })

  it('frames an answer without a length chunked, sends no body for HEAD, and closes after Connection: close', async () => {
    const started = await start((req, res) => {
      if (req.method === 'HEAD') {
        res.writeHead(200, undefined, ['Content-Type', 'text/plain'])
        res.write(Buffer.from('never sent'))
        return void res.end()
      }
      if (req.url === '/close') {
        res.writeHead(403, undefined, ['Content-Length', '2', 'Connection', 'close'])
        return void res.end('no')
      }
      res.writeHead(200, 'Fine', ['Content-Type', 'text/plain'])
      res.flushHeaders()
      res.write(Buffer.from('one '))
      res.write(Buffer.from('two'))
      res.end()
    })
    const streamed = await rawExchange(started.port, [get('/stream')], 1)
    expect(streamed.responses[0]).toMatchObject({ status: 200, body: 'one two' })
    expect(streamed.responses[0]!.headers['transfer-encoding']).toBe('chunked')
    const headAnswer = await new Promise<string>((resolve) => {
      let text = ''
      const socket = net.connect(started.port, '127.0.0.1', () =>
        socket.write('HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n'),
      )
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
      setTimeout(() => {
        socket.destroy()
        resolve(text)
      }, 200)
    })
    expect(headAnswer).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n$/)
    expect(headAnswer).not.toMatch(/never sent|Transfer-Encoding/i)
    const closing = await rawExchange(started.port, [get('/close') + get('/never')], 2)
    expect(closing.responses.map((response) => [response.status, response.body])).toEqual([[403, 'no']])
    expect(closing.responses[0]!.headers.connection).toBe('close')
    expect(closing.closed).toBe(true)
    expect(started.lean).not.toContain('GET /never')
  })

  it('runs nothing that comes after a reply that closes the connection, and closes it', async () => {
    const started = await start((req, res) => {
      res.writeHead(403, undefined, ['Content-Length', '2', 'Connection', 'close'])
      res.end('no')
    })
    const socket = net.connect({ port: started.port, host: '127.0.0.1', allowHalfOpen: true })
    socket.on('error', () => {})
    let text = ''
    let closed = false
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('end', () => (closed = true))
    socket.write(get('/first'))
    for (let i = 0; i < 100 && !text.endsWith('no'); i++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    socket.write(get('/late'))
    for (let i = 0; i < 100 && !closed; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(started.lean).toEqual(['GET /first'])
    expect(closed).toBe(true)
  })

  it('holds a body part back for the rest of its Content-Length only until the turn of the event loop ends', async () => {
    let second: () => void = () => {}
    const started = await start((_req, res) => {
      res.writeHead(200, undefined, ['Content-Length', '11'])
      res.write(Buffer.from('first '))
      second = () => res.end(Buffer.from('part'))
    })
    const socket = net.connect(started.port, '127.0.0.1')
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.write(get('/held'))
    for (let i = 0; i < 100 && !text.endsWith('first '); i++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    expect(text).toMatch(/\r\n\r\nfirst $/)
    second()
    for (let i = 0; i < 100 && !text.endsWith('part'); i++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    expect(text).toMatch(/\r\n\r\nfirst part$/)
    socket.destroy()
  })

  it('counts the bytes that wait while a request is served against the head budget, until they are parsed', async () => {
    const budget = createHeldBudget(1 << 20)
    const heldWhileServed: number[] = []
    let answerSlow: () => void = () => {}
    const started = await start((req, res) => {
      heldWhileServed.push(budget.held)
      if (req.url === '/slow') answerSlow = () => plainAnswer(req, res)
      else plainAnswer(req, res)
    }, budget)
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const next = 'GET /next HTTP/1.1\r\nHost: x\r\nX-Pad: ' + 'p'.repeat(30_000) + '\r\n\r\n'
    const socket = net.connect(started.port, '127.0.0.1')
    socket.on('data', () => {})
    socket.write(get('/slow'))
    await until(() => started.lean.length === 1)
    socket.write(next)
    await until(() => budget.held === next.length)
    expect(budget.held).toBe(next.length)
    answerSlow()
    await until(() => started.lean.length === 2)
    expect(started.lean).toEqual(['GET /slow', 'GET /next'])
    expect(heldWhileServed).toEqual([0, 0])
    expect(budget.held).toBe(0)
    socket.destroy()
  })
})
