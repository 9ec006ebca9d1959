/**
 * The console's session cookie as an attacker on the network or on the browser's side sees it: behind a
 * TLS-terminating gateway (--behind-proxy, the documented deployment) the cookies must be Secure, so a
 * browser never sends them over a plain http:// request an attacker provokes; a session id planted
 * before sign-in is never adopted; after sign-out the old cookie opens nothing. Under https they are
 * named `__Host-...`, which a sibling subdomain cannot set (cookie tossing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { send } from './client.js'

const adminPassword = 'correct horse battery staple'
const signInFields = (csrf: string) => ({ csrf, username: 'admin', password: adminPassword })

function setCookies(headers: Record<string, string | string[] | undefined>): string[] {
  const value = headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

/** A same-site form POST to the console with `cookie`. */
function postForm(vault: TestVault, path: string, cookie: string, fields: Record<string, string>) {
  return send(vault, {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', cookie },
    body: new URLSearchParams(fields).toString(),
  })
}

/**
 * Signs in through the console's form; returns every Set-Cookie of both steps and the session id.
 * `prefix` is what the cookie names start with (`__Host-` under https); `planted` is sent as the
 * session cookie under `plantedName`.
 */
async function signIn(
  vault: TestVault,
  planted?: string,
  prefix = '',
  plantedName = `${prefix}vault_session`,
) {
  const form = await send(vault, { path: '/console/sign-in' })
  const preSession = setCookies(form.headers).find((line) => line.startsWith(`${prefix}vault_sign_in=`))!
  const token = /name="csrf" value="([^"]+)"/.exec(form.body)![1]!
  const cookie = [preSession.split(';')[0], ...(planted ? [`${plantedName}=${planted}`] : [])].join('; ')
  const answer = await postForm(vault, '/console/sign-in', cookie, signInFields(token))
  expect(answer.status).toBe(303)
  const cookies = [preSession, ...setCookies(answer.headers)]
  const session = cookies.find((line) => line.startsWith(`${prefix}vault_session=`))!
  return { cookies, session: session.split(';')[0]!.slice(`${prefix}vault_session=`.length) }
}

describe('console cookies behind a TLS-terminating gateway', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer({ behindProxy: true, trustedProxies: ['127.0.0.1/32'] })
  })
  afterAll(() => vault?.stop())

  it('marks the pre-session and the session cookie Secure (never sent over plain http)', async () => {
    const { cookies } = await signIn(vault, undefined, '__Host-')
    expect(cookies.length).toBe(2)
    for (const line of cookies) expect(line.split('; ')).toContain('Secure')
  })

  it('names them __Host-: a cookie a sibling subdomain planted (no prefix) is never read', async () => {
    const { cookies, session } = await signIn(vault, undefined, '__Host-')
    for (const line of cookies) {
      expect(line).toMatch(/^__Host-/)
      expect(line.split('; ')).toContain('Path=/')
      expect(line).not.toMatch(/Domain=/i)
    }
    const projects = (cookie: string) => send(vault, { path: '/console/projects', headers: { cookie } })
    expect((await projects(`__Host-vault_session=${session}`)).status).toBe(200)
    // The same valid id under the name a sibling subdomain can set (Domain=parent) opens nothing.
    expect((await projects(`vault_session=${session}`)).status).toBe(303)
    // A sign-in whose token cookie came from a sibling subdomain is refused.
    const form = await send(vault, { path: '/console/sign-in' })
    const token = /name="csrf" value="([^"]+)"/.exec(form.body)![1]!
    const tossed = await postForm(vault, '/console/sign-in', `vault_sign_in=${token}`, signInFields(token))
    expect(tossed.status).toBe(403)
  })
})

describe('console sessions', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer()
  })
  afterAll(() => vault?.stop())

  it('never adopts a session id planted before sign-in, and a signed-out cookie opens nothing', async () => {
    const planted = 'A'.repeat(43)
    const { session } = await signIn(vault, planted)
    expect(session).not.toBe(planted)
    const page = (id: string) =>
      send(vault, { path: '/console/projects', headers: { cookie: `vault_session=${id}` } })
    expect((await page(planted)).status).toBe(303)
    const before = await page(session)
    expect(before.status).toBe(200)
    const csrf = /name="csrf" value="([^"]+)"/.exec(before.body)![1]!
    const out = await postForm(vault, '/console/sign-out', `vault_session=${session}`, { csrf })
    expect(out.status).toBe(303)
    const after = await page(session)
    expect(after.status).toBe(303)
    expect(after.headers.location).toBe('/console/sign-in')
  })
})
