/**
 * Connectivity probes against a real HTTP server on loopback: the status of an answer, the error code
 * of a refused connection or a timeout, never a throw.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { probeUrl } from '../../../src/client/probe.js'

let server: Server
let base: string

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/_ping') response.end('OK')
    else if (request.url === '/silent')
      return // never answers
    else if (request.url === '/moved') response.writeHead(301, { location: '/_ping' }).end()
    else response.writeHead(500).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('probeUrl', () => {
  it('is ok on a 2xx answer', async () => {
    expect(await probeUrl(`${base}/_ping`)).toEqual({ ok: true, outcome: 200 })
  })

  it('is not ok on a 5xx or a redirect, which it does not follow', async () => {
    expect(await probeUrl(`${base}/other`)).toEqual({ ok: false, outcome: 500 })
    expect(await probeUrl(`${base}/moved`)).toEqual({ ok: false, outcome: 301 })
  })

  it('gives the network error code of a refused connection', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    expect(await probeUrl(`http://127.0.0.1:${port}/_ping`)).toEqual({ ok: false, outcome: 'ECONNREFUSED' })
  })

  it('gives up after its timeout', async () => {
    const result = await probeUrl(`${base}/silent`, 200)
    expect(result.ok).toBe(false)
    expect(typeof result.outcome).toBe('string')
  })

  it('answers a URL it cannot use instead of throwing', async () => {
    expect(await probeUrl('not a url')).toEqual({ ok: false, outcome: 'error' })
  })
})
