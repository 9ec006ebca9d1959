import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHttpClient } from '../../../src/client/http.js'
import { VaultSession } from '../../../src/client/session.js'
import { fileTokenStore, tokenFilePath, openTokenStore } from '../../../src/client/token-store.js'
import { VaultApi } from '../../../src/client/vault-api.js'
import { ExitCode } from '../../../src/errors.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'
import { sendJson, startTinyServer, type TinyServer } from '../../helpers/tiny-server.js'

const canarySecret = 'CANARY-client-secret-7f3a'
let home: TempHome
let server: TinyServer | undefined
let issued = 0
let validTokens: Set<string>

beforeEach(async () => {
  home = createTempHome()
  issued = 0
  validTokens = new Set()
  server = await startTinyServer((request, response) => {
    if (request.url === '/api/v1/auth/token') {
      const form = new URLSearchParams(request.body)
      if (form.get('client_secret') !== canarySecret || form.get('grant_type') !== 'client_credentials') {
        return sendJson(response, 401, {
          error: 'invalid_client',
          error_description: 'client authentication failed',
        })
      }
      const token = `token-${++issued}`
      validTokens.add(token)
      return sendJson(response, 200, { access_token: token, token_type: 'Bearer', expires_in: 900 })
    }
    const bearer = request.headers.authorization?.replace('Bearer ', '') ?? ''
    if (!validTokens.has(bearer))
      return sendJson(response, 401, { error: { code: 'unauthorized', message: 'token expired' } })
    sendJson(response, 200, {
      environment: 'dev',
      secrets: [{ name: 'A', value: 'a', version: 1, createdAt: '', updatedAt: '' }],
    })
  })
})
afterEach(async () => {
  await server?.close()
  home.cleanup()
})

function session(clientSecret: string | null = canarySecret) {
  const settings = {
    domain: server!.url,
    clientId: 'cid',
    clientSecret: clientSecret ?? undefined,
    insecure: false,
  }
  const http = createHttpClient({ baseUrl: new URL(server!.url), retries: 0 })
  return new VaultSession(settings, http, () => openTokenStore(home.env))
}

describe('VaultSession', () => {
  it('logs in once and caches the token in a mode-600 file when the keychain is off', async () => {
    const api = new VaultApi(session())
    await api.listSecrets('dev')
    const file = tokenFilePath(home.env)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700)
    expect(readFileSync(file, 'utf8')).not.toContain(canarySecret)
    await new VaultApi(session(null)).listSecrets('dev')
    expect(issued).toBe(1)
  })

  it('logs in again when the server refuses the cached token', async () => {
    await new VaultApi(session()).listSecrets('dev')
    validTokens.clear()
    await new VaultApi(session()).listSecrets('dev')
    expect(issued).toBe(2)
  })

  it('renews a token close to its expiry before use', async () => {
    const store = fileTokenStore(tokenFilePath(home.env))
    await store.set(`${new URL(server!.url).href}#cid`, {
      accessToken: 'old',
      expiresAt: Date.now() + 10_000,
    })
    await new VaultApi(session()).listSecrets('dev')
    expect(issued).toBe(1)
  })

  it('says "not logged in" (exit 3) with no cached token and no client secret', async () => {
    await expect(new VaultApi(session(null)).listSecrets('dev')).rejects.toMatchObject({
      exitCode: ExitCode.notConfigured,
      message: 'not logged in',
    })
  })

  it('maps refused credentials to exit 4 without echoing the secret', async () => {
    const refused = await new VaultApi(session('wrong-CANARY'))
      .listSecrets('dev')
      .catch((error: Error) => error)
    expect(refused).toMatchObject({ exitCode: ExitCode.auth })
    expect(JSON.stringify(refused, Object.getOwnPropertyNames(refused))).not.toContain('wrong-CANARY')
  })

  it('logout removes the cached entry', async () => {
    const live = session()
    await live.login()
    expect(await live.logout()).toEqual({ removed: true })
    expect(existsSync(tokenFilePath(home.env))).toBe(true)
    expect(readFileSync(tokenFilePath(home.env), 'utf8')).not.toContain('token-1')
  })
})
