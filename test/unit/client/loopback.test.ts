/**
 * Issue 14, item 10: a `*.localhost` name is not loopback until it resolves to loopback. Plain http://
 * to such a name goes through a lookup that refuses any non-loopback answer, and the socket connects to
 * the address that was checked (the injected resolver stands in for DNS; nothing leaves 127.0.0.1).
 */
import type { LookupAddress } from 'node:dns'
import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import { createHttpClient } from '../../../src/client/http.js'
import { isLocalhostName, isLoopbackAddress, isLoopbackHost } from '../../../src/client/loopback.js'
import { needsLoopbackResolution, vaultBaseUrl } from '../../../src/client/settings.js'

let port = 0
let connections = 0
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end('{"ok":true}')
})
server.on('connection', () => connections++)
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as { port: number }).port
})
afterAll(() => server.close())

function resolver(...addresses: string[]) {
  return (
    _host: string,
    _options: unknown,
    callback: (error: NodeJS.ErrnoException | null, found: LookupAddress[]) => void,
  ) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    )
}

describe('*.localhost is resolved before it counts as loopback', () => {
  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['[::1]', true],
    ['vault.localhost', false],
    ['localhost.example.com', false],
  ])('isLoopbackHost(%s) = %s (as written, no resolution)', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected)
  })

  it('classifies names and addresses', () => {
    expect(isLocalhostName('Vault.LocalHost')).toBe(true)
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true)
    expect(isLoopbackAddress('10.0.0.5')).toBe(false)
  })

  it('plain http:// to a *.localhost name is accepted only with resolution checked (unless --insecure)', () => {
    const url = vaultBaseUrl({ domain: 'http://vault.localhost:8200', insecure: false })
    expect(needsLoopbackResolution(url, { insecure: false })).toBe(true)
    expect(needsLoopbackResolution(url, { insecure: true })).toBe(false)
    expect(
      needsLoopbackResolution(vaultBaseUrl({ domain: 'https://vault.localhost', insecure: false }), {
        insecure: false,
      }),
    ).toBe(false)
  })

  it.each([
    ['a private address', ['10.0.0.5']],
    ['loopback and a private address', ['127.0.0.1', '10.0.0.5']],
    ['the metadata address', ['169.254.169.254']],
  ])('refuses a name that resolves to %s, and connects nowhere', async (_what, addresses) => {
    const before = connections
    const http = createHttpClient({
      baseUrl: new URL(`http://vault.localhost:${port}/`),
      loopbackOnly: true,
      resolve: resolver(...addresses),
      retries: 0,
    })
    const failure = await http({ method: 'GET', path: 'x' }).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(UsageError)
    expect((failure as Error).message).toContain('does not resolve to a loopback address')
    expect(connections).toBe(before)
  })

  it('connects to the loopback address the check accepted', async () => {
    const http = createHttpClient({
      baseUrl: new URL(`http://vault.localhost:${port}/`),
      loopbackOnly: true,
      resolve: resolver('127.0.0.1'),
      retries: 0,
    })
    expect((await http<{ ok: boolean }>({ method: 'GET', path: 'x' })).body).toEqual({ ok: true })
  })
})
