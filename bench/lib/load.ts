/**
 * A lean keep-alive load generator for the proxy and server benchmarks: N connections, each sending one
 * request at a time (the next as soon as the answer ended), answers parsed by Node's own HTTP parser (llhttp, the one
 * node:http uses), latencies in µs. It costs the client far less CPU per request than node:http's Agent
 * and ClientRequest, so on a 2-core machine more of the CPU goes to what is measured (a Go load
 * generator was used for the figures). Loopback and unix sockets only; bounded in time and count.
 */
import { createRequire } from 'node:module'
import net from 'node:net'

interface Parser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void
  execute(data: Buffer): number | Error
  close(): void
  [slot: number]: unknown
}
interface ParserConstructor {
  new (): Parser
  RESPONSE: number
  kOnHeadersComplete: number
  kOnMessageComplete: number
  kLenientNone: number
}

const { HTTPParser } = createRequire(import.meta.url)('_http_common') as { HTTPParser: ParserConstructor }

/** Where to connect: a unix socket path, or host and port. */
export type Endpoint = { socketPath: string } | { host: string; port: number }

/** What one request sends, given its connection and its number among all requests of the run. */
export type RequestBytes = Buffer | ((connection: number, index: number) => Buffer)

/** The bytes of an HTTP/1.1 request (Host: localhost, Content-Length when there is a body). */
export function httpRequest(request: {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string
}): Buffer {
  const body = request.body === undefined ? '' : request.body
  const headers = {
    host: 'localhost',
    ...request.headers,
    ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
  }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  return Buffer.from(`${request.method ?? 'GET'} ${request.path} HTTP/1.1\r\n${head.join('')}\r\n${body}`)
}

export interface LoadOptions {
  endpoint: Endpoint
  request: RequestBytes
  connections: number
  /** Stop sending after this many ms (answers in flight are awaited). */
  durationMs: number
  /** Stop sending after this many answers in all. */
  maxRequests: number
}

export interface LoadResult {
  /** Latency of each answered request, µs. */
  latencies: number[]
  /** Answers whose status was not 2xx, and connection errors. */
  errors: number
  elapsedSeconds: number
  /** Requests sent (the `index` the next request function call gets). */
  sent: number
}

/** One connection's loop; resolves when the time or the count is up (or on an error). */
function connectionLoop(
  options: LoadOptions,
  connection: number,
  result: LoadResult,
  deadline: number,
): Promise<void> {
  const request = options.request
  return new Promise((resolve) => {
    const endpoint = options.endpoint
    const socket =
      'socketPath' in endpoint
        ? net.connect({ path: endpoint.socketPath })
        : net.connect({ host: endpoint.host, port: endpoint.port, noDelay: true })
    const parser = new HTTPParser()
    let status = 0
    let started = 0n
    let answered = false
    const done = () => {
      socket.destroy()
      parser.close()
      resolve()
    }
    const send = () => {
      if (performance.now() >= deadline || result.latencies.length >= options.maxRequests) return done()
      parser.initialize(HTTPParser.RESPONSE, {}, 1 << 20, HTTPParser.kLenientNone)
      started = process.hrtime.bigint()
      socket.write(typeof request === 'function' ? request(connection, result.sent++) : request)
    }
    parser[HTTPParser.kOnHeadersComplete] = (...head: unknown[]) => {
      status = head[5] as number
      return 0
    }
    parser[HTTPParser.kOnMessageComplete] = () => {
      result.latencies.push(Number(process.hrtime.bigint() - started) / 1000)
      if (status < 200 || status > 299) result.errors++
      answered = true
    }
    socket.on('data', (chunk: Buffer) => {
      if (parser.execute(chunk) instanceof Error) {
        result.errors++
        return done()
      }
      // The next request goes out once the parser has returned (never from inside its callback).
      if (answered) {
        answered = false
        send()
      }
    })
    socket.on('error', () => {
      result.errors++
      done()
    })
    socket.on('close', () => resolve())
    socket.on('connect', send)
  })
}

/** Runs the load: `connections` keep-alive connections, one request in flight on each. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result: LoadResult = { latencies: [], errors: 0, elapsedSeconds: 0, sent: 0 }
  const started = performance.now()
  const deadline = started + options.durationMs
  await Promise.all(
    Array.from({ length: options.connections }, (_, connection) =>
      connectionLoop(options, connection, result, deadline),
    ),
  )
  result.elapsedSeconds = (performance.now() - started) / 1000
  return result
}
