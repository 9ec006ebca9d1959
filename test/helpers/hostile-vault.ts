/**
 * Test helper: a hostile vault server (a real node:http server on 127.0.0.1:0) for the attacks of a
 * server that a project directory's `.vault/credentials` names. Every route answers like a vault by
 * default (a token, whoami, one secret GOOD, one version, a change feed that is ready); `script`
 * replaces any route's answer with a hostile one built from the answer kinds below: secret names that
 * mean something to a shell, a loader or a terminal, huge, endless, slow, deep and redirecting answers,
 * arrays and HTML where objects are expected. It records every request (method and path).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

/** How one route answers. */
export type Answer = (request: IncomingMessage, response: ServerResponse) => void

/** The routes a hostile vault can answer in its own way. */
export interface HostileScript {
  token?: Answer
  signin?: Answer
  whoami?: Answer
  secrets?: Answer
  secret?: Answer
  versions?: Answer
  events?: Answer
}

export interface HostileVault {
  url: string
  /** Every request seen, as `METHOD /path`. */
  requests: string[]
  /** Every body received (the sign-in's password among them), as text. */
  bodies: string[]
  /** Replaces the routes' answers (routes not named answer like a vault). */
  script(script: HostileScript): void
  stop(): Promise<void>
}

const at = '2026-01-01T00:00:00.000Z'

/** A well-formed secret as the list answers it. */
export function secretRow(name: string, value = 'v'): Record<string, unknown> {
  return { name, value, version: 1, createdAt: at, updatedAt: at }
}

/** A JSON answer. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Answer {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(JSON.stringify(body))
  }
}

/** A body sent as it is (HTML, a non-JSON text, a hand-built JSON text). */
export function raw(text: string, status = 200, contentType = 'application/json'): Answer {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': contentType })
    response.end(text)
  }
}

/** A secrets list whose one secret has the names given. */
export function namedSecrets(...names: string[]): Answer {
  return json({ secrets: names.map((name) => secretRow(name)) })
}

/**
 * A JSON answer of `bytes` bytes (or endless when `bytes` is Infinity): one secret whose value is
 * `x` repeated, sent as fast as the client reads it. Stops when the client goes away.
 */
export function huge(bytes: number, status = 200): Answer {
  return (request, response) => {
    const head = `{"secrets":[{"name":"BIG","version":1,"createdAt":"${at}","updatedAt":"${at}","value":"`
    const tail = '"}]}'
    const chunk = Buffer.alloc(1 << 20, 'x')
    let left = bytes - head.length - tail.length
    let gone = false
    request.socket.on('close', () => (gone = true))
    response.writeHead(status, { 'content-type': 'application/json' })
    response.write(head)
    const pump = () => {
      while (!gone && left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left)
        left -= part.length
        if (!response.write(part)) return void response.once('drain', pump)
      }
      if (!gone) response.end(tail)
    }
    pump()
  }
}

/** A secrets list of about `bytes` bytes made of as many tiny secrets as fit (about 70 bytes each). */
export function manySecrets(bytes: number): Answer {
  const parts: string[] = []
  let size = 16
  for (let index = 0; size < bytes; index++) {
    const part = JSON.stringify({ name: `A${index}`, value: '', version: 1, createdAt: '', updatedAt: '' })
    parts.push(part)
    size += part.length + 1
  }
  return raw(`{"secrets":[${parts.join(',')}]}`)
}

/** `text` sent one byte every `everyMs` milliseconds. */
export function drip(text: string, everyMs: number): Answer {
  return (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    let index = 0
    const timer = setInterval(() => {
      if (index >= text.length) {
        clearInterval(timer)
        return void response.end()
      }
      response.write(text[index++])
    }, everyMs)
    request.socket.on('close', () => clearInterval(timer))
  }
}

/** JSON nested `levels` deep: `{"secrets":[[[[...]]]]}`. */
export function deep(levels: number, open = '[', close = ']'): Answer {
  return raw(`{"secrets":${open.repeat(levels)}${close.repeat(levels)}}`)
}

/** A redirect to `location` (a function: read when the request comes). */
export function redirect(location: string | (() => string), status = 307): Answer {
  return (_request, response) => {
    const target = typeof location === 'function' ? location() : location
    response.writeHead(status, { location: target, 'content-type': 'application/json' })
    response.end('{}')
  }
}

/** A change feed: the ready event, then `events` (each `[event, data]`, data sent as given when a string). */
export function feed(events: [string, unknown][], options: { thenHold?: boolean } = {}): Answer {
  return (request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
    response.write('retry: 2000\nid: 1\nevent: ready\ndata: {"environment":"dev"}\n\n')
    let id = 2
    for (const [event, data] of events) {
      const text = typeof data === 'string' ? data : JSON.stringify(data)
      response.write(`id: ${id++}\nevent: ${event}\ndata: ${text}\n\n`)
    }
    if (options.thenHold === false) return void response.end()
    const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), 500)
    request.socket.on('close', () => clearInterval(heartbeat))
  }
}

/** A change feed that sends the ready event and then changes of ever new made-up names, as fast as read. */
export function floodFeed(): Answer {
  return (request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    response.write('id: 1\nevent: ready\ndata: {}\n\n')
    let id = 2
    let gone = false
    request.socket.on('close', () => (gone = true))
    const pump = () => {
      while (!gone) {
        let chunk = ''
        for (let count = 0; count < 1000; count++, id++) {
          const change = { name: `N${'X'.repeat(200)}${id}`, version: 1, change: 'updated', at: at }
          chunk += `id: ${id}\nevent: secret\ndata: ${JSON.stringify(change)}\n\n`
        }
        if (!response.write(chunk)) return void response.once('drain', pump)
      }
    }
    pump()
  }
}

/** A change feed that sends the ready event and then one line that never ends, as fast as read. */
export function endlessFeedLine(): Answer {
  return (request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    response.write('id: 1\nevent: ready\ndata: {"environment":"dev"}\n\ndata: ')
    const chunk = Buffer.alloc(1 << 20, 'x')
    let gone = false
    request.socket.on('close', () => (gone = true))
    const pump = () => {
      while (!gone) if (!response.write(chunk)) return void response.once('drain', pump)
    }
    pump()
  }
}

const defaults: Required<HostileScript> = {
  token: json({ access_token: 'hostile-token', token_type: 'Bearer', expires_in: 900 }),
  signin: json({ access_token: 'hostile-token', expires_in: 900, user: { role: 'admin' } }),
  whoami: json({
    identity: { id: 'i', name: 'deploy', clientId: 'c' },
    project: { id: 'p', name: 'home' },
    permissions: {},
  }),
  secrets: namedSecrets('GOOD'),
  secret: json(secretRow('GOOD')),
  versions: json({ versions: [{ version: 1, createdAt: at, actor: 'identity:deploy' }] }),
  events: feed([]),
}

function route(path: string): keyof HostileScript | undefined {
  if (path === '/api/v1/auth/token') return 'token'
  if (path === '/api/v1/auth/signin') return 'signin'
  if (path === '/api/v1/whoami') return 'whoami'
  if (path === '/api/v1/secrets') return 'secrets'
  if (path === '/api/v1/events') return 'events'
  if (/^\/api\/v1\/secrets\/[^/]+\/versions$/.test(path)) return 'versions'
  if (/^\/api\/v1\/secrets\/[^/]+$/.test(path)) return 'secret'
  return undefined
}

/** Starts a hostile vault on 127.0.0.1 (or `host`, another loopback address) and a free port. */
export async function startHostileVault(host = '127.0.0.1'): Promise<HostileVault> {
  let current: HostileScript = {}
  const requests: string[] = []
  const bodies: string[] = []
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://vault').pathname
    requests.push(`${request.method} ${path}`)
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      const name = route(path)
      if (!name)
        return json({ error: { code: 'not_found', message: 'no such route' } }, 404)(request, response)
      ;(current[name] ?? defaults[name])(request, response)
    })
  })
  server.keepAliveTimeout = 1
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://${host}:${port}`,
    requests,
    bodies,
    script(script) {
      current = script
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
