/**
 * Fuzzes the proxy's hand-written request framing (request-head.ts and the pool's body framing) against
 * Node's own HTTP parser: random methods, targets, header names and values, bodies of known and unknown
 * length in random chunks, all on one keep-alive connection. Every request must parse back as exactly one
 * message with the same method, target, headers and body, and a head with a character that could split
 * it must be refused before a byte is written.
 */
import { createRequire } from 'node:module'
import net from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEnginePool, type EnginePool } from '../../../src/proxy/engine-pool.js'
import { HTTPParser } from '../../../src/proxy/node-http.js'
import type { EngineRequest } from '../../../src/proxy/exchange.js'
import { requestHead, UnsafeHeadError } from '../../../src/proxy/request-head.js'

/** Method names by the index Node's parser reports. */
const parserMethods = (createRequire(import.meta.url)('_http_common') as { methods: string[] }).methods

interface Parsed {
  method: string
  url: string
  headers: string[]
  body: string
}

const parsed: Parsed[] = []
let engine: net.Server
let pool: EnginePool
let connections = 0

/** Parses requests with Node's parser (strict) and answers each with an empty 200. */
function serve(socket: net.Socket): void {
  connections++
  const Parser = HTTPParser!
  const parser = new Parser()
  parser.initialize((Parser as unknown as { REQUEST: number }).REQUEST, {}, 1 << 20, Parser.kLenientNone)
  let current: Parsed | undefined
  let extra: string[] = []
  parser[Parser.kOnHeaders] = (headers: string[]) => extra.push(...headers)
  parser[Parser.kOnHeadersComplete] = (
    _major: number,
    _minor: number,
    headers: string[] | undefined,
    method: number,
    url: string,
  ) => {
    current = { method: parserMethods[method]!, url, headers: [...extra, ...(headers ?? [])], body: '' }
    extra = []
    return 0
  }
  parser[Parser.kOnBody] = (chunk: Buffer) => {
    current!.body += chunk.toString('latin1')
  }
  parser[Parser.kOnMessageComplete] = () => {
    parsed.push(current!)
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')
  }
  socket.on('data', (chunk: Buffer) => {
    const result = parser.execute(chunk)
    if (result instanceof Error) {
      parsed.push({
        method: 'PARSE-ERROR',
        url: String((result as { code?: string }).code),
        headers: [],
        body: '',
      })
      socket.destroy()
    }
  })
  socket.on('error', () => socket.destroy())
}

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const tokenChars = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const methods = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH', 'OPTIONS']
const reserved = /^(?:content-length|transfer-encoding|connection|upgrade|te|trailer|host)$/i

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)]!
}

function text(next: () => number, alphabet: string, min: number, max: number): string {
  const length = min + Math.floor(next() * (max - min + 1))
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)]
  return out
}

const valueChars =
  Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('') + '\t\u00e9\u00ff'
const targetChars = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('')

function randomRequest(next: () => number): { request: EngineRequest; body: string; chunks: string[] } {
  const method = pick(next, methods)
  const headers: string[] = ['Host', 'engine']
  const count = Math.floor(next() * 12)
  for (let i = 0; i < count; i++) {
    let name = text(next, tokenChars, 1, 20)
    if (reserved.test(name)) name = `X-${name}`
    const value = text(next, valueChars, 0, 60).trim()
    headers.push(name, value)
  }
  const hasBody = method !== 'GET' && method !== 'HEAD' && next() < 0.7
  const body = hasBody ? text(next, valueChars + '\r\n\u0000', 0, 3000) : ''
  const chunks: string[] = []
  for (let at = 0; at < body.length;) {
    const size = 1 + Math.floor(next() * 700)
    chunks.push(body.slice(at, at + size))
    at += size
  }
  const known = next() < 0.5
  return {
    request: {
      method,
      target: `/${text(next, targetChars, 0, 80)}`,
      headers,
      body: hasBody ? Readable.from(chunks.map((chunk) => Buffer.from(chunk, 'latin1'))) : undefined,
      bodyLength: hasBody && known ? body.length : undefined,
    },
    body,
    chunks,
  }
}

function exchange(request: EngineRequest): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    pool.exchange(request, {
      onHead: () => undefined,
      onBody: () => true,
      onEnd: () => resolve(undefined),
      onError: (error) => resolve(error),
    })
  })
}

beforeAll(async () => {
  const socketPath = join(mkdtempSync(join(tmpdir(), 'request-head-')), 'engine.sock')
  engine = net.createServer(serve)
  await new Promise<void>((resolve) => engine.listen(socketPath, resolve))
  pool = createEnginePool(HTTPParser!, () => net.connect({ path: socketPath }), 1 << 20)
})

afterAll(() => {
  pool.close()
  engine.close()
})

describe('request framing against Node’s parser', () => {
  it('parses back, request after request on one connection, exactly as sent (400 random requests)', async () => {
    const next = random(20261124)
    for (let i = 0; i < 400; i++) {
      const { request, body } = randomRequest(next)
      parsed.length = 0
      const error = await exchange(request)
      expect(error, `request ${i}`).toBeUndefined()
      expect(parsed, `request ${i}`).toHaveLength(1)
      const message = parsed[0]!
      expect(message.method).toBe(request.method)
      expect(message.url).toBe(request.target)
      const framing = request.body
        ? request.bodyLength === undefined
          ? ['Transfer-Encoding', 'chunked']
          : ['Content-Length', String(request.bodyLength)]
        : []
      expect(message.headers).toEqual([...request.headers, ...framing])
      expect(message.body).toBe(body)
    }
    expect(connections).toBe(1)
  })

  it.each([
    ['CR LF in a value', ['X-A', 'a\r\nContent-Length: 9']],
    ['a bare LF in a value', ['X-A', 'a\nb']],
    ['a bare CR in a value', ['X-A', 'a\rb']],
    ['NUL in a value', ['X-A', 'a\u0000b']],
    ['a space in a name', ['X A', 'b']],
    ['a colon in a name', ['X:A', 'b']],
    ['an empty name', ['', 'b']],
    ['a Content-Length of the client', ['Content-Length', '0']],
    ['a Transfer-Encoding of the client', ['transfer-encoding', 'chunked']],
    ['a Connection of the client', ['Connection', 'close']],
    ['two Host headers', ['Host', 'a', 'host', 'b']],
  ])('refuses a head with %s', (_name, headers) => {
    expect(() => requestHead({ method: 'GET', target: '/x', headers })).toThrow(UnsafeHeadError)
  })

  it.each([
    ['a space in the target', 'GET', '/a b'],
    ['CR LF in the target', 'GET', '/a\r\nX: y'],
    ['a target without a slash', 'GET', 'a'],
    ['a lower-case method', 'get', '/a'],
    ['a method with a space', 'GET /x HTTP/1.1\r\n', '/a'],
  ])('refuses %s', (_name, method, target) => {
    expect(() => requestHead({ method, target, headers: [] })).toThrow(UnsafeHeadError)
  })
})
