import { afterEach, describe, expect, it } from 'vitest'
import { ciIdentityToken, hasCiToken } from '../../../src/client/ci-token.js'
import { ExitCode } from '../../../src/errors.js'
import { sendJson, startTinyServer, type TinyServer } from '../../helpers/tiny-server.js'

const requestCanary = 'CANARY-gh-request-token-51c2'
const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'
let server: TinyServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

describe("a CI job's OIDC token", () => {
  it('is VAULT_OIDC_TOKEN as given, when it is a JWT', async () => {
    await expect(ciIdentityToken({ token: jwt }, 'https://vault.test')).resolves.toBe(jwt)
    const refused = await ciIdentityToken({ token: 'CANARY not a jwt' }, 'x').catch((error: unknown) => error)
    expect(refused).toMatchObject({ exitCode: ExitCode.auth })
    expect(String(refused)).not.toContain('CANARY')
  })

  it("is requested from GitHub Actions' endpoint for the vault's domain, with the request token as bearer", async () => {
    server = await startTinyServer((_request, response) => sendJson(response, 200, { count: 1, value: jwt }))
    const token = await ciIdentityToken(
      { request: { url: `${server.url}/token?api-version=2.0`, bearer: requestCanary } },
      'https://vault.test',
    )
    expect(token).toBe(jwt)
    const [seen] = server.requests
    expect(seen!.method).toBe('GET')
    expect(seen!.url).toBe('/token?api-version=2.0&audience=https%3A%2F%2Fvault.test')
    expect(seen!.headers.authorization).toBe(`bearer ${requestCanary}`)
  })

  it('asks for VAULT_OIDC_AUDIENCE when it is set', async () => {
    server = await startTinyServer((_request, response) => sendJson(response, 200, { value: jwt }))
    await ciIdentityToken(
      { request: { url: `${server.url}/t?v=2`, bearer: 'b' }, audience: 'sts.vault' },
      'x',
    )
    expect(server.requests[0]!.url).toBe('/t?v=2&audience=sts.vault')
  })

  it.each([
    ['a 403', 403, { message: 'no id-token permission' }, /HTTP 403/],
    ['no value', 200, { count: 0 }, /no token/],
    ['a value that is not a JWT', 200, { value: 'not a jwt' }, /no token/],
    ['a value of another type', 200, { value: { __proto__: { length: 3 } } }, /no token/],
  ])(
    'refuses an endpoint answering %s, without the request token in the error (exit 4)',
    async (_label, status, body, problem) => {
      server = await startTinyServer((_request, response) => sendJson(response, status, body))
      const refused = await ciIdentityToken(
        { request: { url: `${server.url}/t?secret-query=${requestCanary}`, bearer: requestCanary } },
        'x',
      ).catch((error: unknown) => error)
      expect(refused).toMatchObject({ exitCode: ExitCode.auth })
      expect(String(refused)).toMatch(problem)
      expect(String(refused)).not.toContain(requestCanary)
    },
  )

  it('is unreachable (exit 7) when the endpoint is, without the request URL query in the error', async () => {
    const refused = await ciIdentityToken(
      { request: { url: `http://127.0.0.1:1/t?secret-query=${requestCanary}`, bearer: requestCanary } },
      'x',
    ).catch((error: unknown) => error)
    expect(refused).toMatchObject({ exitCode: ExitCode.unreachable })
    expect(String(refused)).not.toContain(requestCanary)
  })

  it('is there only with a token or a request pair', () => {
    expect(hasCiToken(undefined)).toBe(false)
    expect(hasCiToken({ audience: 'x' })).toBe(false)
    expect(hasCiToken({ token: jwt })).toBe(true)
  })
})
