/**
 * The lean engine client against a scripted engine on a unix socket that answers with exact bytes:
 * keep-alive reuse, answers that end the connection, HEAD, streamed and chunked bodies, many headers,
 * interim 1xx answers, back-pressure, cut answers, an absent engine, and re-framed request bodies.
 */
import net from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createEnginePool, type EnginePool } from '../../../src/proxy/engine-pool.js'
import { HTTPParser } from '../../../src/proxy/node-http.js'
import type { EngineRequest } from '../../../src/proxy/exchange.js'

const dir = mkdtempSync(join(tmpdir(), 'engine-pool-'))
const socketPath = join(dir, 'engine.sock')
const received: string[] = []
let connections = 0
let engine: net.Server
let pool: EnginePool

const manyHeaders = Array.from({ length: 40 }, (_, i) => `X-H${i}: v${i}\r\n`).join('')

/** Settles when /stray-later's unsolicited answer has been written (the next request must come after it). */
let strayWritten: Promise<void> = Promise.resolve()

/** Raw answers by request path; a function answers over time. */
const answers: Record<string, string | ((socket: net.Socket) => void)> = {
  '/ok': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK',
  '/close': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK',
  '/head': 'HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n',
  '/chunked': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n',
  '/many-headers': `HTTP/1.1 200 OK\r\n${manyHeaders}Content-Length: 0\r\n\r\n`,
  '/early-hints':
    'HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlate',
  '/stray-in-same-chunk':
    'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOKHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstolen',
  '/stray-partial': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOKHTTP/1.1 2',
  '/stray-later': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK')
    strayWritten = new Promise((resolve) =>
      setTimeout(
        () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstolen', () => resolve()),
        20,
      ),
    )
  },
  '/until-close': (socket) => socket.end('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nwhole body'),
  '/cut': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial')
    setTimeout(() => socket.destroy(), 20)
  },
  '/length-parts': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhel')
    setTimeout(() => socket.write('lo '), 20)
    setTimeout(() => socket.write('world'), 40)
  },
  '/length-then-stray': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel')
    setTimeout(() => socket.write('loHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstolen'), 20)
  },
  '/two-parts': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n')
    setTimeout(() => socket.write('6\r\nsecond\r\n0\r\n\r\n'), 100)
  },
}

/** Reads requests one after the other (head, then a Content-Length or chunked body) and answers. */
function serveConnection(socket: net.Socket): void {
  connections++
  let buffer = ''
  socket.setEncoding('latin1')
  socket.on('error', () => socket.destroy())
  socket.on('data', (text: string) => {
    buffer += text
    for (;;) {
      const headEnd = buffer.indexOf('\r\n\r\n')
      if (headEnd === -1) return
      const head = buffer.slice(0, headEnd)
      let end = headEnd + 4
      const length = /\r\ncontent-length: (\d+)/i.exec(head)
      if (length) end += Number(length[1])
      else if (/\r\ntransfer-encoding: chunked/i.test(head)) {
        const last = buffer.indexOf('0\r\n\r\n', headEnd + 4)
        if (last === -1) return
        end = last + 5
      }
      if (buffer.length < end) return
      received.push(buffer.slice(0, end))
      buffer = buffer.slice(end)
      const answer = answers[head.split(' ')[1]!.split('?')[0]!] ?? answers['/ok']!
      if (typeof answer === 'function') answer(socket)
      else socket.write(answer)
    }
  })
}

interface Outcome {
  status?: number
  headers?: string[]
  body: string
  ended: boolean
  error?: NodeJS.ErrnoException
  afterHead?: boolean
}

function send(
  request: Partial<EngineRequest> & { target: string },
  onBody: (chunk: Buffer) => boolean = () => true,
  target: EnginePool = pool,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { body: '', ended: false }
    target.exchange(
      { method: 'GET', headers: ['Host', 'docker'], ...request },
      {
        onHead(status, _message, headers) {
          outcome.status = status
          outcome.headers = headers
        },
        onBody(chunk) {
          outcome.body += chunk.toString('latin1')
          return onBody(chunk)
        },
        onEnd() {
          outcome.ended = true
          resolve(outcome)
        },
        onError(error, afterHead) {
          Object.assign(outcome, { error, afterHead })
          resolve(outcome)
        },
      },
    )
  })
}

const connect =
  (path = socketPath) =>
  () =>
    net.connect({ path })

beforeAll(async () => {
  engine = net.createServer(serveConnection)
  await new Promise<void>((resolve) => engine.listen(socketPath, resolve))
  pool = createEnginePool(HTTPParser!, connect(), 1 << 20)
})

afterAll(() => {
  pool.close()
  engine.close()
})

beforeEach(() => {
  received.length = 0
  pool.close()
  connections = 0
})

describe('engine pool', () => {
  it('is available on this Node (the parser node:http uses)', () => {
    expect(HTTPParser).toBeTypeOf('function')
  })

  it.each([
    ['keep-alive answers reuse one connection', '/ok', 1],
    ['Connection: close answers are not reused', '/close', 3],
    ['answers that end with the connection are not reused', '/until-close', 3],
  ])('%s', async (_name, path, expected) => {
    for (let i = 0; i < 3; i++) {
      const outcome = await send({ target: path })
      expect(outcome.status).toBe(200)
      expect(outcome.ended).toBe(true)
    }
    expect(connections).toBe(expected)
  })

  it.each([
    ['bytes after a complete answer in the same read', '/stray-in-same-chunk'],
    ['the start of a second answer after a complete one', '/stray-partial'],
    ['an unsolicited answer arriving after a complete one', '/stray-later'],
  ])('never reuses a connection that sent %s: the next request gets its own answer', async (_name, path) => {
    expect(await send({ target: path })).toMatchObject({ body: 'OK', ended: true })
    await strayWritten
    await new Promise((resolve) => setTimeout(resolve, 50))
    const next = await send({ target: '/ok' })
    expect(next.body).toBe('OK')
    expect(connections).toBe(2)
  })

  it.each([
    ['shorter', 'abc'],
    ['longer', 'abcdefghijklmnop'],
  ])(
    'fails, and never reuses the connection, when a body is %s than its Content-Length',
    async (_name, text) => {
      const outcome = await send({
        method: 'POST',
        target: '/ok',
        body: Readable.from([Buffer.from(text)]),
        bodyLength: 10,
      })
      expect(outcome.error).toBeDefined()
      expect((await send({ target: '/ok' })).body).toBe('OK')
      expect(connections).toBe(2)
      expect(received.join('')).not.toContain('abcdefghijk')
    },
  )

  it('refuses to write a head a header could split, before anything reaches the engine', async () => {
    const outcome = await send({ target: '/ok', headers: ['X-A', 'a\r\nContent-Length: 5'] })
    expect(outcome.error?.code).toBe('ERR_UNSAFE_HEAD')
    expect(received).toEqual([])
    expect(connections).toBe(0)
  })

  it.each([
    ['a HEAD answer has no body even with a Content-Length', 'HEAD', '/head', 200, ''],
    ['a chunked body arrives decoded', 'GET', '/chunked', 200, 'abcde'],
    ['an interim 1xx answer is skipped', 'GET', '/early-hints', 200, 'late'],
    ['a body that ends with the connection arrives whole', 'GET', '/until-close', 200, 'whole body'],
  ])('%s', async (_name, method, path, status, body) => {
    const outcome = await send({ method, target: path })
    expect(outcome).toMatchObject({ status, body, ended: true })
    expect((await send({ target: '/ok' })).body).toBe('OK')
  })

  it('passes more headers than the parser reports at once', async () => {
    const outcome = await send({ target: '/many-headers' })
    expect(outcome.headers).toHaveLength(82)
    expect(outcome.headers!.slice(0, 2)).toEqual(['X-H0', 'v0'])
    expect(outcome.headers!.slice(-2)).toEqual(['Content-Length', '0'])
  })

  it('writes the request head with the given headers and a Host when none is given', async () => {
    await send({ target: '/ok?all=1', headers: ['X-A', 'b'] })
    expect(received).toEqual(['GET /ok?all=1 HTTP/1.1\r\nX-A: b\r\nHost: localhost\r\n\r\n'])
  })

  it.each([
    ["under the proxy's own Content-Length", 6, 'Content-Length: 6\r\n\r\nabcdef'],
    [
      're-framed as chunked',
      undefined,
      'Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n',
    ],
  ])('sends a request body %s', async (_name, bodyLength, tail) => {
    const body = Readable.from([Buffer.from('abc'), Buffer.from('def')])
    const outcome = await send({
      method: 'POST',
      target: '/ok',
      headers: ['Host', 'e'],
      body,
      bodyLength,
    })
    expect(outcome.ended).toBe(true)
    expect(received).toEqual([`POST /ok HTTP/1.1\r\nHost: e\r\n${tail}`])
  })

  it('streams: the first part arrives before the engine ends, and pauses until resumed', async () => {
    let exchange: ReturnType<EnginePool['exchange']> | undefined
    const parts: string[] = []
    const ended = new Promise<void>((resolve) => {
      exchange = pool.exchange(
        { method: 'GET', target: '/two-parts', headers: [] },
        {
          onHead: () => undefined,
          onBody: (chunk) => {
            parts.push(chunk.toString())
            return false
          },
          onEnd: resolve,
          onError: (error) => {
            throw error
          },
        },
      )
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(parts).toEqual(['first'])
    exchange!.resume()
    await ended
    expect(parts).toEqual(['first', 'second'])
  })

  it('passes on a Content-Length body that arrives in parts, exactly, and reuses the connection', async () => {
    const parts: string[] = []
    const outcome = await send({ target: '/length-parts' }, (chunk) => parts.push(chunk.toString()) > 0)
    expect(outcome).toMatchObject({ status: 200, body: 'hello world', ended: true })
    // the parts the engine wrote 20 ms apart may be read together on a loaded machine
    expect(parts.join('')).toBe('hello world')
    expect(parts.length).toBeGreaterThanOrEqual(2)
    expect((await send({ target: '/ok' })).body).toBe('OK')
    expect(connections).toBe(1)
  })

  it('stops a Content-Length body at its length when the next read carries more, and drops the connection', async () => {
    expect(await send({ target: '/length-then-stray' })).toMatchObject({ body: 'hello', ended: true })
    expect((await send({ target: '/ok' })).body).toBe('OK')
    expect(connections).toBe(2)
  })

  it('reports an answer cut short after its head', async () => {
    const outcome = await send({ target: '/cut' })
    expect(outcome).toMatchObject({ status: 200, ended: false, afterHead: true })
    expect(outcome.error).toBeInstanceOf(Error)
  })

  it('reports an engine that is not there before any head', async () => {
    const lonely = createEnginePool(HTTPParser!, connect(join(dir, 'missing.sock')), 1 << 20)
    const outcome = await send({ target: '/ok' }, undefined, lonely)
    expect(outcome).toMatchObject({ ended: false, afterHead: false })
    expect(outcome.error?.code).toBe('ENOENT')
  })
})
