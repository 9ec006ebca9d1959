/**
 * A raw client for hostile shapes: writes bytes exactly as given, parses what comes back with Node's
 * own response parser, and stops after the expected number of final responses, at the proxy's close,
 * or at a safety deadline.
 */
import net from 'node:net'
import { createRequire } from 'node:module'
import type { ParserConstructor } from '../../src/proxy/node-http.js'

const require = createRequire(import.meta.url)
const { HTTPParser } = require('_http_common') as { HTTPParser: ParserConstructor }

/** One response the client received. */
export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** What a raw exchange produced. */
export interface RawOutcome {
  responses: RawResponse[]
  /** Bytes after the last complete response (a tunnel's output, or a cut answer). */
  rest: string
  /** The proxy closed the connection. */
  closed: boolean
}

/**
 * Sends `parts` to the proxy (each written once the previous has been flushed), and collects answers
 * until `expected` final (non-1xx) responses arrived (or, after a 101, until the tunnel's output
 * contains `expected`), or the connection closed, or `deadlineMs` passed.
 */
export function rawExchange(
  port: number,
  parts: readonly (string | Buffer)[],
  expected: number | string,
  deadlineMs = 5_000,
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const responses: RawResponse[] = []
    let rest = ''
    let tunnelled = false
    let finals = 0
    let current: RawResponse | undefined
    const parser = new HTTPParser()
    parser.initialize(HTTPParser.RESPONSE, {}, 4 << 20, HTTPParser.kLenientNone)
    parser[HTTPParser.kOnHeadersComplete] = (
      _major: number,
      _minor: number,
      headers: string[],
      _method: unknown,
      _url: unknown,
      status: number,
    ) => {
      const record: Record<string, string> = {}
      for (let i = 0; i < headers.length; i += 2) record[headers[i]!.toLowerCase()] = headers[i + 1]!
      current = { status, headers: record, body: '' }
      responses.push(current)
      if (status === 101) tunnelled = true
      return 0
    }
    parser[HTTPParser.kOnBody] = (chunk: Buffer) => {
      if (current) current.body += chunk.toString('latin1')
    }
    parser[HTTPParser.kOnMessageComplete] = () => {
      if (current && current.status >= 200) finals++
      current = undefined
    }
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    const timer = setTimeout(() => finish(false), deadlineMs)
    let done = false
    const finish = (closed: boolean) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ responses, rest, closed })
    }
    socket.on('data', (chunk: Buffer) => {
      if (tunnelled) rest += chunk.toString('latin1')
      else {
        const result = parser.execute(chunk)
        if (result instanceof Error) {
          const parsed = (result as Error & { bytesParsed?: number }).bytesParsed ?? 0
          rest += chunk.subarray(parsed).toString('latin1')
          if (!tunnelled) return finish(false)
        } else if (tunnelled) {
          rest += chunk.subarray(result).toString('latin1')
        }
      }
      if (typeof expected === 'number' ? finals >= expected : rest.includes(expected)) finish(false)
    })
    socket.on('error', () => finish(true))
    socket.on('end', () => finish(true))
    socket.on('connect', async () => {
      for (const part of parts) {
        if (socket.destroyed) return
        await new Promise<void>((written) => socket.write(part, () => written()))
      }
    })
  })
}
