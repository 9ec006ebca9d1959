/**
 * Issue 35 in the console, over HTTP against the real server: a template's history page does not show
 * its value; Reveal shows the template as written and its value resolved on the server from the
 * environment's current values (a rotated POSTGRES_PASSWORD shows at once); a template naming a secret
 * that is gone, or a cycle, shows the resolver's one-line message (names, no stack trace, no value).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'

let server: TestVault
let home: TempHome
let cookie = ''
let csrf = ''
const first = 'canary-pg-first-4c2a'
const template = 'postgresql://app:${POSTGRES_PASSWORD}@db:5432/app?x=$${literal}'
const secretPath = (name: string) => `/console/projects/demo/environments/dev/secrets/${name}`
const cli = (args: string[], input?: string) =>
  runCommandLine(args, {
    input,
    env: {
      ...home.env,
      ...deploymentVariables(server),
    },
  })

/** A same-site console request with the session cookie; the answer's status and text. */
async function consoleRequest(path: string, form?: Record<string, string>) {
  const response = await fetch(new URL(path, server.url), {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      cookie,
      'sec-fetch-site': 'same-origin',
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form ? new URLSearchParams(form).toString() : undefined,
  })
  return { status: response.status, text: await response.text(), cookies: response.headers.getSetCookie() }
}

const reveal = (name: string) => consoleRequest(`${secretPath(name)}/reveal`, { csrf })
const decoded = (text: string) =>
  text
    .replace(/&#x24;|&#36;/g, '$')
    .replace(/&amp;/g, '&')
    .replace(/&#x2F;|&#47;/g, '/')
    .replace(/&quot;/g, '"')
const block = (text: string, id: string) =>
  new RegExp(`<pre class="value" id="${id}">([^<]*)</pre>`).exec(text)?.[1]

beforeAll(async () => {
  server = await startVaultServer({})
  home = createTempHome()
  expect((await cli(['secrets', 'set', 'POSTGRES_PASSWORD', '--env', 'dev'], first)).exitCode).toBe(0)
  expect(
    (await cli(['secrets', 'set', 'DATABASE_URL', '--env', 'dev', '--template'], template)).exitCode,
  ).toBe(0)
  const form = await consoleRequest('/console/sign-in')
  cookie = form.cookies.map((line) => line.split(';')[0]).join('; ')
  const token = /name="csrf" value="([^"]+)"/.exec(form.text)![1]!
  const signedIn = await consoleRequest('/console/sign-in', {
    csrf: token,
    username: 'admin',
    password: 'correct horse battery staple',
  })
  expect(signedIn.status).toBe(303)
  cookie = signedIn.cookies.map((line) => line.split(';')[0]).join('; ')
  csrf = /name="csrf" value="([^"]+)"/.exec((await consoleRequest(secretPath('DATABASE_URL'))).text)![1]!
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
})

describe('a template in the console', () => {
  it('the history page shows no value; Reveal shows the template as written and its resolved value', async () => {
    const history = await consoleRequest(secretPath('DATABASE_URL'))
    expect(history.status).toBe(200)
    expect(history.text).not.toContain(first)
    expect(history.text).not.toContain('postgresql://')
    const page = await reveal('DATABASE_URL')
    expect(page.status).toBe(200)
    expect(decoded(block(page.text, 'template-value') ?? '')).toBe(template)
    expect(decoded(block(page.text, 'revealed-value') ?? '')).toBe(
      `postgresql://app:${first}@db:5432/app?x=\${literal}`,
    )
  })

  it('resolves from the current values: a new POSTGRES_PASSWORD shows at once', async () => {
    expect(
      (await cli(['secrets', 'set', 'POSTGRES_PASSWORD', '--env', 'dev'], 'canary-pg-second-77')).exitCode,
    ).toBe(0)
    const page = await reveal('DATABASE_URL')
    expect(decoded(block(page.text, 'revealed-value') ?? '')).toBe(
      'postgresql://app:canary-pg-second-77@db:5432/app?x=${literal}',
    )
  })

  it('a plain secret reveals as before, with no template section', async () => {
    const page = await reveal('POSTGRES_PASSWORD')
    expect(block(page.text, 'revealed-value')).toBe('canary-pg-second-77')
    expect(page.text).not.toContain('template-value')
  })

  it('a reference to a deleted secret, or a cycle: one clear line, names only, no stack trace', async () => {
    expect(
      (await cli(['secrets', 'set', 'A_URL', '--env', 'dev', '--template'], 'a:${POSTGRES_PASSWORD}'))
        .exitCode,
    ).toBe(0)
    expect((await cli(['secrets', 'delete', 'POSTGRES_PASSWORD', '--env', 'dev'])).exitCode).toBe(0)
    const missing = await reveal('DATABASE_URL')
    expect(missing.status).toBe(200)
    expect(missing.text).toContain(
      'This template cannot be resolved: DATABASE_URL -&gt; POSTGRES_PASSWORD: POSTGRES_PASSWORD is not a secret of this environment',
    )
    expect(missing.text).not.toMatch(/ at .*\.js:\d+|TemplateError|canary-pg/)
    expect(block(missing.text, 'revealed-value')).toBeUndefined()
    // A cycle, stored through the API (which, unlike secrets set, does not check references).
    for (const [name, value] of [
      ['POSTGRES_PASSWORD', 'p:${A_URL}'],
      ['A_URL', 'a:${POSTGRES_PASSWORD}'],
    ]) {
      const put = await fetch(new URL(`/api/v1/secrets/${name}?environment=dev`, server.url), {
        method: 'PUT',
        headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value, template: true }),
      })
      expect(put.status).toBeLessThan(300)
    }
    const cycle = await reveal('DATABASE_URL')
    expect(cycle.status).toBe(200)
    expect(cycle.text).toContain(
      'This template cannot be resolved: the secret references form a cycle: POSTGRES_PASSWORD -&gt; A_URL -&gt; POSTGRES_PASSWORD',
    )
    expect(cycle.text).not.toMatch(/ at .*\.js:\d+|TemplateError/)
  })
})
