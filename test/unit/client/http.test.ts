import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttpsServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createHttpClient, debugEnabled, httpStatusError, retryAfterMs } from '../../../src/client/http.js'
import { ExitCode } from '../../../src/errors.js'
import { hasOpenssl, makeSelfSigned } from '../../helpers/certificates.js'
import { sendJson, startTinyServer, type TinyServer } from '../../helpers/tiny-server.js'

let server: TinyServer | undefined
afterEach(async () => {
  vi.useRealTimers()
  await server?.close()
  server = undefined
})

/** The first retry's wait in these tests (1 s by default): the retries happen, in a tenth of the time. */
const fastBackoffMs = 100

function client(url: string) {
  return createHttpClient({ baseUrl: new URL(url), retries: 2, backoffBaseMs: fastBackoffMs })
}

describe('httpStatusError', () => {
  it.each([
    [400, ExitCode.usage],
    [401, ExitCode.auth],
    [403, ExitCode.auth],
    [404, ExitCode.notFound],
    [409, ExitCode.conflict],
    [412, ExitCode.conflict],
    [413, ExitCode.usage],
    [429, ExitCode.unreachable],
    [500, ExitCode.unreachable],
  ])('HTTP %i maps to exit code %i', (status, exitCode) => {
    const error = httpStatusError(status, JSON.stringify({ error: { code: 'x', message: 'what happened' } }))
    expect(error.exitCode).toBe(exitCode)
    expect(error.message).toContain('what happened')
  })

  it('reads OAuth error bodies', () => {
    const error = httpStatusError(
      401,
      JSON.stringify({ error: 'invalid_client', error_description: 'bad client' }),
    )
    expect(error.message).toBe('the vault refused the credentials: bad client (HTTP 401 invalid_client)')
  })
})

describe('the retry backoff', () => {
  const realSetTimeout = globalThis.setTimeout
  const realPause = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms))

  /**
   * A GET answered 503 then 200, on fake timers: after each advance the server has seen the number of
   * requests given (waiting in real time for the retry's I/O, or 50 ms for one that must not come).
   */
  async function expectRequests(backoffBaseMs: number | undefined, steps: [number, number][]) {
    server = await startTinyServer((_request, response) =>
      server!.requests.length === 1
        ? sendJson(response, 503, { error: { code: 'not_ready', message: 'starting' } })
        : sendJson(response, 200, { ok: true }),
    )
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const send = createHttpClient({ baseUrl: new URL(server.url), retries: 1, backoffBaseMs })
    const answered = send({ method: 'GET', path: 'api/v1/x' })
    const reach = async (count: number) => {
      for (let waited = 0; server!.requests.length < count && waited < 5000; waited += 10) await realPause(10)
      await realPause(50)
    }
    await reach(1)
    for (const [ms, count] of steps) {
      await vi.advanceTimersByTimeAsync(ms)
      await reach(count)
      expect(server.requests).toHaveLength(count)
    }
    expect((await answered).body).toEqual({ ok: true })
  }

  it('waits 1 s (plus up to a tenth of it) before the first retry by default', async () => {
    await expectRequests(undefined, [
      [999, 1],
      [100, 2],
    ])
  })

  it('waits the injected base before the first retry', async () => {
    await expectRequests(20, [
      [19, 1],
      [2, 2],
    ])
  })
})

describe('createHttpClient retries', () => {
  it('retries a GET after a 429, honouring Retry-After', async () => {
    let calls = 0
    server = await startTinyServer((_request, response) => {
      calls++
      if (calls === 1)
        sendJson(
          response,
          429,
          { error: { code: 'rate_limited', message: 'slow down' } },
          { 'retry-after': '1' },
        )
      else sendJson(response, 200, { ok: true })
    })
    const started = Date.now()
    const response = await client(server.url)({ method: 'GET', path: 'api/v1/health' })
    expect(response.body).toEqual({ ok: true })
    expect(calls).toBe(2)
    // real time on purpose: Retry-After counts whole seconds, so honouring the shortest one waits 1 s
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
  })

  it('retries a PATCH refused with 429 (the server did not process it)', async () => {
    let calls = 0
    server = await startTinyServer((_request, response) => {
      calls++
      if (calls === 1)
        sendJson(response, 429, { error: { code: 'rate_limited', message: 'x' } }, { 'retry-after': '0' })
      else sendJson(response, 200, { name: 'A', version: 2 })
    })
    await client(server.url)({ method: 'PATCH', path: 'api/v1/secrets/A', json: { value: 'v' } })
    expect(calls).toBe(2)
  })

  it.each([
    ['GET', 3],
    ['PUT', 3],
    ['POST', 1],
    ['PATCH', 1],
  ] as const)(
    'a %s answered 503 is sent %i time(s)',
    async (method, expected) => {
      server = await startTinyServer((_request, response) =>
        sendJson(response, 503, { error: { code: 'down', message: 'down' } }),
      )
      const fast = createHttpClient({
        baseUrl: new URL(server.url),
        retries: 2,
        backoffBaseMs: fastBackoffMs,
      })
      await expect(
        fast({ method, path: 'api/v1/x', json: method === 'GET' ? undefined : {} }),
      ).rejects.toMatchObject({
        exitCode: ExitCode.unreachable,
      })
      expect(server.requests).toHaveLength(expected)
    },
    20_000,
  )

  it('gives up with exit 7 when Retry-After is longer than allowed', async () => {
    server = await startTinyServer((_request, response) =>
      sendJson(
        response,
        429,
        { error: { code: 'rate_limited', message: 'wait' } },
        { 'retry-after': '3600' },
      ),
    )
    await expect(client(server.url)({ method: 'GET', path: 'api/v1/x' })).rejects.toMatchObject({
      exitCode: ExitCode.unreachable,
      message: expect.stringContaining('rate limiting'),
    })
    expect(server.requests).toHaveLength(1)
  })

  it('sends the bearer token and the query', async () => {
    server = await startTinyServer((_request, response) => sendJson(response, 200, {}))
    await client(server.url)({
      method: 'GET',
      path: 'api/v1/secrets',
      searchParams: { environment: 'dev', project: undefined },
      bearer: 'tok',
    })
    expect(server.requests[0]!.url).toBe('/api/v1/secrets?environment=dev')
    expect(server.requests[0]!.headers.authorization).toBe('Bearer tok')
  })
})

describe('debugEnabled', () => {
  it.each([
    ['*', true],
    ['vault*', true],
    ['vault:http', true],
    ['express:*,vault', true],
    ['oclif*', false],
    ['', false],
  ])('DEBUG=%j -> %s', (value, expected) => {
    expect(debugEnabled(value)).toBe(expected)
  })
})

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-22T04:00:00Z')
  it.each([
    ['3', 3000],
    ['0', 0],
    ['Sun, 22 Nov 2026 04:00:05 GMT', 5000],
    ['Sun, 22 Nov 2026 03:59:00 GMT', 0],
    ['soon', undefined],
    [undefined, undefined],
  ])('%j -> %j', (header, expected) => {
    expect(retryAfterMs(header, now)).toBe(expected)
  })
})

describe('timeouts', () => {
  it('gives up on a server that never answers with exit 7 after the retries', async () => {
    server = await startTinyServer(() => undefined)
    const slow = createHttpClient({ baseUrl: new URL(server.url), retries: 0, timeoutMs: 300 })
    await expect(slow({ method: 'GET', path: 'api/v1/x' })).rejects.toMatchObject({
      exitCode: ExitCode.unreachable,
      message: expect.stringContaining('ETIMEDOUT'),
    })
  })
})

describe('retryUnreachable: false (--fallback)', () => {
  /** A 127.0.0.1 port nothing listens on (a server bound, then closed). */
  async function refusedUrl(): Promise<string> {
    const closed = await startTinyServer(() => undefined)
    await closed.close()
    return closed.url
  }

  it('a refused connection fails at once (one attempt), where the default retries for about 3 s', async () => {
    const url = await refusedUrl()
    const quick = createHttpClient({ baseUrl: new URL(url), retries: 2, retryUnreachable: false })
    let started = Date.now()
    await expect(quick({ method: 'GET', path: 'api/v1/x' })).rejects.toMatchObject({
      exitCode: ExitCode.unreachable,
      message: expect.stringContaining('ECONNREFUSED'),
    })
    expect(Date.now() - started).toBeLessThan(500)
    started = Date.now()
    await expect(client(url)({ method: 'GET', path: 'api/v1/x' })).rejects.toMatchObject({
      message: expect.stringContaining('ECONNREFUSED'),
    })
    // the retries' backoff (base, then twice the base; 1 s and 2 s by default): the case the option shortens
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * fastBackoffMs - 10)
  })

  it('a slow vault that answers still gets its timeout and its answer', async () => {
    server = await startTinyServer((_request, response) => {
      setTimeout(() => sendJson(response, 200, { ok: true }), 400)
    })
    const quick = createHttpClient({ baseUrl: new URL(server.url), retryUnreachable: false, timeoutMs: 5000 })
    const response = await quick<{ ok: boolean }>({ method: 'GET', path: 'api/v1/x' })
    expect(response.body).toEqual({ ok: true })
  })

  const nginx502 =
    '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.27.3</center>\r\n</body>\r\n</html>\r\n'

  it.each([
    [502, nginx502, 'text/html'],
    [503, 'no available server\n', 'text/plain'],
    [504, '', 'text/plain'],
    [502, '{"message":"Bad Gateway"}', 'application/json'],
  ])(
    "a gateway's own %i (the vault behind it down) fails at once, where the default retries",
    async (status, body, type) => {
      server = await startTinyServer((_request, response) => {
        response.writeHead(status, { 'content-type': type })
        response.end(body)
      })
      const quick = createHttpClient({ baseUrl: new URL(server.url), retries: 2, retryUnreachable: false })
      const started = Date.now()
      await expect(quick({ method: 'GET', path: 'api/v1/x' })).rejects.toMatchObject({
        exitCode: ExitCode.unreachable,
        message: `a gateway in front of the vault answered HTTP ${status}: the vault behind it is not answering`,
      })
      expect(Date.now() - started).toBeLessThan(500)
      expect(server.requests).toHaveLength(1)
      await expect(client(server.url)({ method: 'GET', path: 'api/v1/x' })).rejects.toMatchObject({
        exitCode: ExitCode.unreachable,
      })
      expect(server.requests).toHaveLength(4)
    },
  )

  it("the vault's own 503 (its JSON error) is still retried: the vault answered, it is not gone", async () => {
    server = await startTinyServer((request, response) => {
      if (server!.requests.length < 3)
        sendJson(response, 503, { error: { code: 'not_ready', message: 'starting' } })
      else sendJson(response, 200, { ok: true })
    })
    const quick = createHttpClient({
      baseUrl: new URL(server.url),
      retries: 2,
      retryUnreachable: false,
      backoffBaseMs: fastBackoffMs,
    })
    const response = await quick<{ ok: boolean }>({ method: 'GET', path: 'api/v1/x' })
    expect(response.body).toEqual({ ok: true })
    expect(server.requests).toHaveLength(3)
  })

  it('a timeout is still retried (the vault may be slow, not gone)', async () => {
    server = await startTinyServer(() => undefined)
    const quick = createHttpClient({
      baseUrl: new URL(server.url),
      retries: 1,
      timeoutMs: 200,
      retryUnreachable: false,
      backoffBaseMs: fastBackoffMs,
    })
    await expect(quick({ method: 'GET', path: 'api/v1/x' })).rejects.toMatchObject({
      message: expect.stringContaining('ETIMEDOUT'),
    })
    expect(server.requests).toHaveLength(2)
  })
})

describe.runIf(hasOpenssl)('https', () => {
  it('verifies the certificate: a self-signed one is refused with exit 7', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-tls-'))
    try {
      makeSelfSigned('/CN=127.0.0.1', join(dir, 'key.pem'), join(dir, 'cert.pem'))
      const tls = createHttpsServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (_request, response) => response.end('{}'),
      )
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve))
      const { port } = tls.address() as { port: number }
      try {
        const https = createHttpClient({ baseUrl: new URL(`https://127.0.0.1:${port}`), retries: 0 })
        await expect(https({ method: 'GET', path: 'api/v1/health' })).rejects.toMatchObject({
          exitCode: ExitCode.unreachable,
          message: expect.stringMatching(/SELF_SIGNED/),
        })
      } finally {
        tls.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
