/**
 * LeanReply against node:http's ServerResponse, the framing it copies: the same writeHead/write/end calls
 * made on each, on real sockets, and both answers read by node:http's client (llhttp). Status, headers
 * (but Date's value) and body must be the same, for a Content-Length answer, an answer without a length
 * (chunked), a given `Transfer-Encoding: chunked`, `Connection: close`, 204 and a HEAD request.
 */
import http from 'node:http'
import net from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { LeanReply } from '../../../src/proxy/lean-reply.js'

interface Calls {
  status: number
  headers: string[]
  body: Buffer[]
}

interface Read {
  status: number
  headers: string[]
  body: string
}

const servers: net.Server[] = []
/** Requests say keep-alive, as every request the lean path serves does. */
const agent = new http.Agent({ keepAlive: true })
afterAll(() => {
  agent.destroy()
  servers.forEach((server) => server.close())
})

function replay(res: Pick<LeanReply, 'writeHead' | 'write' | 'end'>, calls: Calls): void {
  res.writeHead(calls.status, undefined, calls.headers)
  for (const chunk of calls.body) res.write(chunk)
  res.end()
}

/** One request to a server on 127.0.0.1:`port`, read by node:http's client; Date's value blanked. */
function ask(port: number, method: string): Promise<Read> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: '/x', agent }, (res) => {
      let body = ''
      res.setEncoding('latin1')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => {
        const headers = res.rawHeaders.map((value, i) =>
          res.rawHeaders[i - 1] === 'Date' ? '(date)' : value,
        )
        resolve({ status: res.statusCode!, headers, body })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

async function listen(server: net.Server): Promise<number> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as net.AddressInfo).port
}

/** The answer node:http's ServerResponse gives for `calls`. */
async function viaServerResponse(calls: Calls, method: string): Promise<Read> {
  const server = http.createServer({ keepAliveTimeout: 5_000 }, (_req, res) => {
    res.writeHead(calls.status, calls.headers)
    for (const chunk of calls.body) res.write(chunk)
    res.end()
  })
  return ask(await listen(server), method)
}

/** The answer LeanReply gives for `calls` (the request's head is read whole before it answers). */
async function viaLeanReply(calls: Calls, method: string): Promise<Read> {
  const server = net.createServer((socket) => {
    socket.once('data', () => {
      const owner = { socket, keepAliveSeconds: 5, reasons: http.STATUS_CODES, ended: () => undefined }
      replay(new LeanReply(owner, method === 'HEAD'), calls)
    })
  })
  return ask(await listen(server), method)
}

const body = [Buffer.from('first part, '), Buffer.from('second part')]
const length = String(body.reduce((sum, chunk) => sum + chunk.length, 0))

describe('LeanReply frames an answer as ServerResponse does', () => {
  it.each([
    [
      'a Content-Length answer',
      'GET',
      { status: 200, headers: ['Content-Type', 'text/plain', 'Content-Length', length], body },
    ],
    [
      'an answer without a length (chunked)',
      'GET',
      { status: 200, headers: ['Content-Type', 'text/plain'], body },
    ],
    [
      'a given Transfer-Encoding: chunked',
      'GET',
      { status: 200, headers: ['Transfer-Encoding', 'chunked'], body },
    ],
    [
      'Connection: close',
      'GET',
      { status: 200, headers: ['Connection', 'close', 'Content-Length', length], body },
    ],
    ['a 204', 'GET', { status: 204, headers: [], body: [] }],
    ['a HEAD request', 'HEAD', { status: 200, headers: ['Content-Length', length], body }],
    [
      'an answer with a status the reasons lack',
      'GET',
      { status: 299, headers: ['Content-Length', '0'], body: [] },
    ],
  ] as [string, string, Calls][])('%s', async (_name, method, calls) => {
    const expected = await viaServerResponse(calls, method)
    expect(await viaLeanReply(calls, method)).toEqual(expected)
  })
})
