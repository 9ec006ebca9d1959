/**
 * Rule sets and masking in a running proxy, in front of a fake engine on a unix socket: the rule set
 * chosen by client certificate (mutual TLS, certificates made with the openssl CLI) and by frontend;
 * container inspect answers masked and held whole, everything else streamed chunk by chunk; an
 * oversized inspect answer replaced by a clear 502.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import { resolveRuleSetConfig, type ProxySettings, type TlsMaterial } from '../../../src/proxy/config.js'
import { maxInspectBodyBytes } from '../../../src/proxy/inspect-redact.js'
import { createLogger } from '../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../src/proxy/server.js'
import { makeCaSignedCertificates } from '../../helpers/certificates.js'

const dir = mkdtempSync(join(tmpdir(), 'proxy-rule-sets-'))
const file = (name: string) => join(dir, name)
const canary = 'canary-served-9d2f'

const makeCertificates = () => makeCaSignedCertificates(dir, ['server', 'dashboard', 'updater'], '/O=acme')

/** The fake engine: inspect answers (normal or oversized) and a log stream it sends on demand. */
let releaseSecondChunk: () => void = () => {}
const engine = http.createServer((req, res) => {
  if (req.url!.endsWith('/huge/json')) {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ Config: { Env: [`A=${canary}`] }, Pad: 'x'.repeat(maxInspectBodyBytes) }))
  } else if (req.url!.endsWith('/json')) {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    const body = JSON.stringify({
      Id: 'web',
      Config: { Tty: true, Env: [`DB_PASSWORD=${canary}`, 'PATH=/bin'] },
    })
    res.write(body.slice(0, 20))
    setTimeout(() => res.end(body.slice(20)), 50)
  } else if (req.url!.endsWith('/logs')) {
    res.writeHead(200, { 'Content-Type': 'application/vnd.docker.raw-stream' })
    res.write('first\n')
    releaseSecondChunk = () => res.end(`second ${canary}\n`)
  } else res.writeHead(200, { 'Content-Type': 'text/plain' }).end('OK')
})

const proxies: ProxyServer[] = []

async function start(
  settings: ProxySettings,
  options: { tls?: TlsMaterial; frontend?: string; path?: string } = {},
) {
  const backend = await createBackend({ kind: 'unix', path: file('engine.sock'), mode: 0o660 })
  const proxy = await createProxyServer({
    ruleSets: resolveRuleSetConfig(settings),
    backend,
    logger: createLogger(0, 'text'),
    tls: options.tls,
    frontend: options.frontend,
  })
  proxies.push(proxy)
  await new Promise<void>((resolve) =>
    options.path ? proxy.server.listen(options.path, resolve) : proxy.server.listen(0, '127.0.0.1', resolve),
  )
  return (proxy.server.address() as net.AddressInfo).port
}

interface Answer {
  status: number
  body: string
}

function collect(res: http.IncomingMessage): Promise<Answer> {
  return new Promise((resolve) => {
    let body = ''
    res.on('data', (chunk) => (body += chunk))
    res.on('end', () => resolve({ status: res.statusCode!, body }))
  })
}

const get = (options: http.RequestOptions, client: typeof http | typeof https = http) =>
  new Promise<Answer>((resolve, reject) => {
    client.get({ agent: false, ...options }, (res) => void collect(res).then(resolve)).on('error', reject)
  })

beforeAll(async () => {
  makeCertificates()
  await new Promise<void>((resolve) => engine.listen(file('engine.sock'), resolve))
})

afterAll(async () => {
  for (const proxy of proxies) await proxy.shutdown(100)
  engine.close()
})

describe('rule sets chosen by client certificate (mutual TLS)', () => {
  it('gives CN=dashboard monitoring and CN=updater management', async () => {
    const port = await start(
      { clients: 'cert CN=dashboard,O=acme monitoring; cert CN=updater management' },
      {
        tls: {
          ca: readFileSync(file('ca.pem')),
          cert: readFileSync(file('server.pem')),
          key: readFileSync(file('server.key')),
        },
      },
    )
    const as = (name: string, method: string, path: string) =>
      new Promise<Answer>((resolve, reject) => {
        https
          .request(
            {
              host: '127.0.0.1',
              port,
              method,
              path,
              agent: false,
              ca: readFileSync(file('ca.pem')),
              cert: readFileSync(file(`${name}.pem`)),
              key: readFileSync(file(`${name}.key`)),
            },
            (res) => void collect(res).then(resolve),
          )
          .on('error', reject)
          .end()
      })
    expect((await as('dashboard', 'GET', '/v1.41/containers/web/json')).body).toContain(
      'DB_PASSWORD=********',
    )
    expect((await as('dashboard', 'POST', '/v1.41/containers/web/stop')).status).toBe(403)
    expect((await as('updater', 'POST', '/v1.41/containers/web/stop')).status).toBe(200)
    expect((await as('updater', 'GET', '/v1.41/containers/web/json')).body).toContain(canary)
  })
})

describe('rule sets chosen by frontend', () => {
  it('answers the dashboard socket with monitoring and refuses a socket no selector names', async () => {
    const dashboard = `unix://${file('dashboard.sock')}`
    const other = `unix://${file('other.sock')}`
    const settings = { clients: `frontend ${dashboard} monitoring` }
    await start(settings, { frontend: `${dashboard}?mode=0660`, path: file('dashboard.sock') })
    await start(settings, { frontend: other, path: file('other.sock') })
    expect((await get({ socketPath: file('dashboard.sock'), path: '/v1.41/containers/json' })).status).toBe(
      200,
    )
    const refused = await get({ socketPath: file('other.sock'), path: '/_ping' })
    expect(refused.status).toBe(403)
    expect(refused.body).toContain(`no rule set for this client (frontend ${other})`)
  })
})

describe('masking in the relay', () => {
  let port: number
  beforeAll(async () => {
    port = await start({
      preset: 'read-only',
      rules: 'GET %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/logs',
    })
  })

  it('masks an inspect answer that arrives in pieces; the canary never reaches the client', async () => {
    const answer = await get({ host: '127.0.0.1', port, path: '/v1.41/containers/web/json' })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body).Config.Env).toEqual(['DB_PASSWORD=********', 'PATH=********'])
    expect(answer.body).not.toContain(canary)
  })

  it('streams logs chunk by chunk, masked (the first arrives before the engine sends the second)', async () => {
    let body = ''
    const firstChunk = await new Promise<string>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/v1.41/containers/web/logs', agent: false }, (res) => {
          res.once('data', (chunk: Buffer) => {
            resolve(chunk.toString())
            res.on('data', (more: Buffer) => (body += more.toString()))
            releaseSecondChunk()
          })
        })
        .on('error', reject)
    })
    expect(firstChunk).toBe('first\n')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(body).toBe('second ********\n')
  })

  it('answers an inspect answer over the cap with a 502 message, never a truncated body', async () => {
    const answer = await get({ host: '127.0.0.1', port, path: '/v1.41/containers/huge/json' })
    expect(answer.status).toBe(502)
    expect(JSON.parse(answer.body).message).toContain('larger than')
    expect(answer.body).not.toContain(canary)
  })
})
