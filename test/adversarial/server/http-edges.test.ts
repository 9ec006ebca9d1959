/**
 * Issue 14 item 10 (server side): malformed credentials, conditional requests and bodies are refused
 * with a 4xx, and a refused write changes nothing (the secret stays at its version); every answer
 * carries nosniff.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { send, type RawAnswer } from './client.js'

describe('HTTP edge cases', () => {
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    vault = await startVaultServer()
    token = await vault.token(vault.deploymentCredentials)
  })
  afterAll(() => vault?.stop())

  const secretPath = (name: string) => `/api/v1/secrets/${name}?environment=dev`
  const put = (name: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    send(vault, {
      method: 'PUT',
      path: secretPath(name),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body,
    })
  async function versionOf(name: string): Promise<number | null> {
    const answer = await send(vault, {
      path: secretPath(name),
      headers: { authorization: `Bearer ${token}` },
    })
    return answer.status === 200 ? (JSON.parse(answer.body) as { version: number }).version : null
  }

  it('answers a malformed % in HTTP Basic credentials with 400, not 500', async () => {
    const answer = await send(vault, {
      method: 'POST',
      path: '/api/v1/auth/token',
      headers: {
        authorization: `Basic ${Buffer.from('vc_%zz:%E0%A4%A').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_request' })
  })

  it.each([
    ['If-None-Match: * on an existing secret', { 'if-none-match': '*' }, 412],
    ['If-None-Match with the current tag', { 'if-none-match': '"1"' }, 412],
    ['a weak If-Match tag', { 'if-match': 'W/"1"' }, 412],
    ['an unquoted If-Match tag', { 'if-match': '1' }, 400],
    ['an If-Match list with an unquoted tag', { 'if-match': '"1", 2' }, 400],
  ])('refuses a PUT with %s and keeps the version', async (_attack, headers, status) => {
    const name = `COND_${status}_${Object.keys(headers)[0]!.replace(/-/g, '_').toUpperCase()}_${Math.random().toString(36).slice(2, 8).toUpperCase()}`
    expect((await put(name, JSON.stringify({ value: 'first' }))).status).toBe(201)
    const answer = await put(name, JSON.stringify({ value: 'second' }), headers)
    expect(answer.status).toBe(status)
    expect(await versionOf(name)).toBe(1)
  })

  it('lets If-None-Match: * create a secret that does not exist yet', async () => {
    expect((await put('COND_FRESH', JSON.stringify({ value: 'v' }), { 'if-none-match': '*' })).status).toBe(
      201,
    )
  })

  it.each([
    [
      'an invalid UTF-8 byte in the value',
      Buffer.concat([Buffer.from('{"value":"a'), Buffer.from([0xff]), Buffer.from('b"}')]),
    ],
    [
      'an overlong UTF-8 encoding',
      Buffer.concat([Buffer.from('{"value":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
    ],
    ['a lone surrogate escape', Buffer.from('{"value":"a\\ud800b"}')],
  ])('refuses %s with 400 and writes nothing', async (_attack, body) => {
    const name = `UTF_${Math.random().toString(36).slice(2, 8).toUpperCase()}`
    const answer = await put(name, body)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body).error.code).toBe('invalid_utf8')
    expect(await versionOf(name)).toBeNull()
  })

  it('sends X-Content-Type-Options: nosniff on every kind of answer', async () => {
    const answers: RawAnswer[] = [
      await send(vault, { path: '/' }),
      await send(vault, { path: '/api/v1/health' }),
      await send(vault, { path: '/api/v1/openapi.yaml' }),
      await send(vault, { path: '/api/v1/secrets' }),
      await send(vault, { path: '/api/v1/nothing' }),
      await send(vault, { method: 'DELETE', path: '/api/v1/health' }),
      await send(vault, { method: 'HEAD', path: '/api/v1/health' }),
    ]
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 401, 404, 405, 200])
    for (const answer of answers) expect(answer.headers['x-content-type-options']).toBe('nosniff')
    expect(answers[5]!.headers.allow).toBe('GET, HEAD')
    expect(answers[6]!.body).toBe('')
    expect(answers[0]!.headers['strict-transport-security']).toBeUndefined()
  })
})
