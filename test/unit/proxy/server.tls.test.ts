/**
 * TLS and mutual TLS on the proxy's TCP frontend (certificates made with the openssl CLI), in front of
 * a fake engine on a unix socket.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import type { ProxyServer } from '../../../src/proxy/server.js'
import { hasOpenssl, makeCaSignedCertificates } from '../../helpers/certificates.js'
import { startProxy } from '../../helpers/start-proxy.js'

const dir = mkdtempSync(join(tmpdir(), 'proxy-tls-'))
const file = (name: string) => join(dir, name)
const makeCertificates = () => makeCaSignedCertificates(dir, ['server', 'client'])

let engine: http.Server
let proxy: ProxyServer
let port: number

beforeAll(async () => {
  if (!hasOpenssl) return
  makeCertificates()
  const socketPath = file('engine.sock')
  engine = http.createServer((_req, res) => res.end('OK'))
  await new Promise<void>((resolve) => engine.listen(socketPath, resolve))
  const backend = await createBackend({ kind: 'unix', path: socketPath, mode: 0o660 })
  const tls = {
    cert: readFileSync(file('server.pem')),
    key: readFileSync(file('server.key')),
    ca: readFileSync(file('ca.pem')),
  }
  ;({ proxy, port } = await startProxy(backend, { tls }))
})

afterAll(async () => {
  if (!hasOpenssl) return
  await proxy.shutdown(100)
  engine.close()
})

function ping(withClientCertificate: boolean): Promise<string> {
  return new Promise((resolve) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: '/_ping',
        ca: readFileSync(file('ca.pem')),
        ...(withClientCertificate
          ? { cert: readFileSync(file('client.pem')), key: readFileSync(file('client.key')) }
          : {}),
        agent: false,
      },
      (res) => {
        let body = ''
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve(`${res.statusCode} ${body}`))
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`))
    req.end()
  })
}

describe.skipIf(!hasOpenssl)('mutual TLS frontend', () => {
  it('forwards for a client with a certificate signed by the CA', async () => {
    expect(await ping(true)).toBe('200 OK')
  })

  it('refuses the handshake without a client certificate', async () => {
    expect(await ping(false)).toMatch(/^error /)
  })
})

describe.skipIf(!hasOpenssl)('engine behind mutual TLS (tcp:// backend with client settings)', () => {
  it.each<[string, string, Record<string, string> | undefined, string | undefined]>([
    ['a GET', 'GET', undefined, undefined],
    ['a body with its Content-Length', 'POST', { 'Content-Length': '5' }, 'hello'],
    ['a chunked body', 'POST', { 'Transfer-Encoding': 'chunked' }, 'hello'],
  ])('forwards %s over the TLS keep-alive pool', async (_name, method, headers, body) => {
    const tlsEngine = https.createServer(
      {
        cert: readFileSync(file('server.pem')),
        key: readFileSync(file('server.key')),
        ca: readFileSync(file('ca.pem')),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        let text = ''
        req.on('data', (chunk) => (text += chunk))
        req.on('end', () =>
          res.end(`${req.method} ${req.url} ${req.headers['transfer-encoding'] ?? '-'} ${text}`),
        )
      },
    )
    await new Promise<void>((resolve) => tlsEngine.listen(0, '127.0.0.1', resolve))
    const enginePort = (tlsEngine.address() as net.AddressInfo).port
    const backend = await createBackend(
      { kind: 'tcp', host: '127.0.0.1', port: enginePort },
      {
        ca: readFileSync(file('ca.pem')),
        cert: readFileSync(file('client.pem')),
        key: readFileSync(file('client.key')),
      },
    )
    const { proxy: front, port: frontPort } = await startProxy(backend)
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: frontPort,
            method,
            path: '/v1.41/exec/abc/start',
            headers,
            agent: false,
          },
          (res) => {
            let text = ''
            res.on('data', (chunk) => (text += chunk))
            res.on('end', () => resolve(`${res.statusCode} ${text}`))
          },
        )
        req.on('error', reject)
        req.end(body)
      })
      const chunked = headers?.['Transfer-Encoding'] ? 'chunked' : '-'
      expect(answer).toBe(`200 ${method} /v1.41/exec/abc/start ${chunked} ${body ?? ''}`)
    } finally {
      await front.shutdown(100)
      tlsEngine.close()
    }
  })
})
