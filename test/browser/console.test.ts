/**
 * Issue 19: the web console in a real browser (Debian's chromium driven by playwright-core) against a real
 * `vault server` process over HTTP, on SQLite and on PostgreSQL: sign in, create a secret, update it, roll it
 * back, reveal it (the value never in a page before), create a machine identity and `vault export` with its
 * secret (the built CLI); then the attacks: a cross-site form, posts with a missing or wrong CSRF token
 * (nothing changes in the database), and the sign-in lockout.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumOrNull, chromiumUnavailableReason, launchChromium } from '../helpers/browser.js'
import { runCli } from '../helpers/cli.js'
import { createDatabase, postgresOrNull } from '../helpers/components.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import {
  spawnVaultProcess,
  startVaultServer,
  type TestVault,
  type VaultProcess,
} from '../helpers/vault-server.js'

const chromiumPath = chromiumOrNull()
const postgres = postgresOrNull()
const adminPassword = 'correct horse battery staple'

const databases = [
  { name: 'SQLite', dbUrl: async () => undefined, available: true },
  { name: 'PostgreSQL', dbUrl: async () => createDatabase(postgres!), available: postgres !== null },
]

describe.skipIf(!chromiumPath)(`console in chromium (${chromiumUnavailableReason()})`, () => {
  describe.each(databases)('on $name', ({ name, dbUrl, available }) => {
    if (!available) {
      it.skip(`${name} is unavailable: its console tests are skipped`, () => undefined)
      return
    }
    let vault: TestVault
    let server: VaultProcess
    let browser: BrowserContext
    let closeBrowser: () => Promise<void>
    let page: Page
    let home: TempHome
    const secretName = `CANARY_${randomBytes(3).toString('hex').toUpperCase()}`
    const first = `canary-first-${randomBytes(8).toString('hex')}`
    const second = `canary-second-${randomBytes(8).toString('hex')}`

    /** Counts of every table a console change writes to, and the secret's current version. */
    async function databaseState() {
      return vault.running.context.driver.transaction(async (tx) => ({
        versions: (await tx.all(`SELECT COUNT(*) AS n FROM secret_versions`))[0]!.n,
        identities: (await tx.all(`SELECT COUNT(*) AS n FROM identities`))[0]!.n,
        webhooks: (await tx.all(`SELECT COUNT(*) AS n FROM webhooks`))[0]!.n,
        secrets: await tx.all(`SELECT name, version, deleted FROM secrets ORDER BY name`),
      }))
    }

    beforeAll(async () => {
      vault = await startVaultServer({ dbUrl: await dbUrl() })
      server = await spawnVaultProcess(vault)
      ;({ browser, close: closeBrowser } = await launchChromium(chromiumPath!))
      page = await browser.newPage()
      home = createTempHome()
    })
    afterAll(async () => {
      await closeBrowser?.()
      await server?.stop()
      await vault?.stop()
      home?.cleanup()
    })

    it('sends a browser at / to the sign-in page, and signs in', async () => {
      await page.goto(`${server.url}/`)
      expect(new URL(page.url()).pathname).toBe('/console/sign-in')
      await page.getByLabel('User name').fill('admin')
      await page.getByLabel('Password').fill(adminPassword)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect.poll(() => new URL(page.url()).pathname).toBe('/console/projects')
      const cookie = (await browser.cookies()).find((entry) => entry.name === 'vault_session')!
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' })
      expect(await page.locator('h2').first().textContent()).toBe('demo')
    })

    it('creates a secret and shows its new version', async () => {
      await page.getByRole('link', { name: 'dev', exact: true }).click()
      await page.getByLabel('Name').fill(secretName)
      await page.getByLabel('Value').fill(first)
      await page.getByRole('button', { name: 'Create secret' }).click()
      await expect
        .poll(() => page.locator('.notice').textContent())
        .toBe(`Saved: ${secretName} is now at version 1.`)
      expect(await page.content()).not.toContain(first)
    })

    it('updates it (version 2), with the value in no page', async () => {
      await page.getByLabel('New value').fill(second)
      await page.getByRole('button', { name: 'Save as version 2' }).click()
      await expect
        .poll(() => page.locator('.notice').textContent())
        .toBe(`Saved: ${secretName} is now at version 2.`)
      expect(await page.content()).not.toContain(second)
    })

    it('rolls it back to version 1 through a confirm page (version 3)', async () => {
      await page.getByRole('link', { name: 'Roll back to this' }).click()
      expect(await page.locator('.question').textContent()).toContain('back to the value of version 1')
      await page.getByRole('button', { name: 'Roll back to version 1' }).click()
      await expect
        .poll(() => page.locator('.notice').textContent())
        .toBe(`Saved: ${secretName} is now at version 3.`)
      const history = await page.locator('tbody tr td:nth-child(3)').allTextContents()
      expect(history).toEqual(['user:admin', 'user:admin', 'user:admin'])
    })

    it('never puts a value in the source of any page before a reveal (canary)', async () => {
      const pages = [
        '/console/projects',
        `/console/projects/demo/environments/dev`,
        `/console/projects/demo/environments/dev/secrets/${secretName}`,
        `/console/projects/demo/environments/dev/secrets/${secretName}/rollback?version=2`,
        `/console/projects/demo/environments/dev/secrets/${secretName}/delete`,
        '/console/projects/demo/audit',
      ]
      for (const path of pages) {
        const response = await page.request.get(`${server.url}${path}`)
        expect(response.status(), path).toBe(200)
        const source = await response.text()
        expect(source).not.toContain(first)
        expect(source).not.toContain(second)
      }
      expect(server.log()).not.toContain(first)
    })

    it('reveals the value only on an explicit POST, answered no-store, and audits it', async () => {
      await page.goto(`${server.url}/console/projects/demo/environments/dev`)
      const answer = page.waitForResponse((response) => response.url().endsWith('/reveal'))
      await page.getByRole('row', { name: secretName }).getByRole('button', { name: 'Reveal' }).click()
      const response = await answer
      expect(response.request().method()).toBe('POST')
      expect(response.headers()['cache-control']).toBe('no-store')
      expect(await page.locator('#revealed-value').textContent()).toBe(first)
      await page.goto(`${server.url}/console/projects/demo/audit`)
      expect(await page.locator('section.chain h2').textContent()).toBe('Chain: intact')
      const reads = page.getByRole('row').filter({ hasText: 'secret.read' }).filter({ hasText: 'user:admin' })
      expect(await reads.count()).toBe(1)
    })

    it('creates a machine identity whose secret, shown once, works with vault export', async () => {
      await page.goto(`${server.url}/console/projects/demo/identities`)
      await page.getByLabel('Name').fill('browser-made')
      await page.getByLabel('Permissions').fill('dev=read')
      await page.getByRole('button', { name: 'Create identity' }).click()
      const clientId = (await page.locator('#client-id').textContent())!
      const clientSecret = (await page.locator('#client-secret').textContent())!
      expect(clientSecret).toMatch(/^vs_/)
      const result = await runCli(['export', '--env', 'dev', '--format', 'json'], {
        env: {
          ...home.env,
          VAULT_DOMAIN: server.url,
          VAULT_PROJECT_ID: vault.projectId,
          VAULT_CLIENT_ID: clientId,
          VAULT_CLIENT_SECRET: clientSecret,
        },
      })
      expect(result.exitCode, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({ [secretName]: first })
      await page.goto(`${server.url}/console/projects/demo/identities`)
      expect(await page.content()).not.toContain(clientSecret)
    })

    it('changes nothing for posts with a missing or wrong CSRF token', async () => {
      const before = await databaseState()
      const target = `${server.url}/console/projects/demo/environments/dev/secrets/${secretName}`
      for (const csrf of [undefined, 'forged', '']) {
        const form: Record<string, string> = { value: 'csrf-attack', current: '3' }
        if (csrf !== undefined) form.csrf = csrf
        const response = await page.request.post(target, { form })
        expect(response.status()).toBe(403)
      }
      const identity = await page.request.post(`${server.url}/console/projects/demo/identities`, {
        form: { csrf: 'forged', name: 'csrf-made', permissions: '*=admin' },
      })
      expect(identity.status()).toBe(403)
      expect(await databaseState()).toEqual(before)
    })

    it('changes nothing for a form posted from another site', async () => {
      const before = await databaseState()
      const target = `${server.url}/console/projects/demo/environments/dev/secrets/${secretName}`
      const attacker: Server = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' })
        response.end(`<form id="f" method="post" action="${target}">
<input name="value" value="cross-site"><input name="current" value="3"><input name="csrf" value="guess"></form>
<script>document.getElementById('f').submit()</script>`)
      })
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.2', resolve))
      try {
        const attack = await browser.newPage()
        const landed = attack.waitForResponse((response) => response.url().startsWith(target))
        await attack.goto(`http://127.0.0.2:${(attacker.address() as AddressInfo).port}/`)
        const response = await landed
        expect(response.request().headers().cookie ?? '').not.toContain('vault_session')
        expect([303, 403]).toContain(response.status())
        await attack.close()
      } finally {
        attacker.close()
      }
      expect(await databaseState()).toEqual(before)
    })

    it('signs out with a POST, after which pages need signing in again', async () => {
      await page.goto(`${server.url}/console/projects`)
      await page.getByRole('button', { name: 'Sign out' }).click()
      await expect.poll(() => new URL(page.url()).pathname).toBe('/console/sign-in')
      await page.goto(`${server.url}/console/projects/demo/environments/dev`)
      expect(new URL(page.url()).pathname).toBe('/console/sign-in')
    })

    it('renders a hostile user name echoed by the sign-in page as inert text', async () => {
      const fresh = await browser.newPage()
      const hostile = `"><script>window.pwned=1</script><img src=x onerror="window.pwned=2">\u001b[2J`
      await fresh.goto(`${server.url}/console/sign-in`)
      await fresh.getByLabel('User name').fill(hostile)
      await fresh.getByLabel('Password').fill('whatever it is')
      await fresh.getByRole('button', { name: 'Sign in' }).click()
      expect(await fresh.locator('.notice.error').count()).toBe(1)
      expect(await fresh.evaluate('typeof window.pwned')).toBe('undefined')
      expect(await fresh.evaluate('document.scripts.length + document.images.length')).toBe(0)
      expect(await fresh.getByLabel('User name').inputValue()).toBe(hostile.replace('\u001b', '\\x1b'))
      await fresh.close()
    })

    it('locks sign-in after repeated wrong passwords: then even the right one is refused', async () => {
      const fresh = await browser.newPage()
      await fresh.goto(`${server.url}/console/sign-in`)
      let token = (await fresh.locator('input[name=csrf]').getAttribute('value'))!
      let retryAfter = 0
      for (let attempt = 1; attempt <= 20 && retryAfter < 4; attempt++) {
        await sleep(retryAfter * 1000)
        const answer = await fresh.request.post(`${server.url}/console/sign-in`, {
          form: { csrf: token, username: 'admin', password: `wrong password ${attempt}` },
          maxRedirects: 0,
        })
        expect([401, 429]).toContain(answer.status())
        retryAfter = Number(answer.headers()['retry-after'] ?? 0)
        token = /name="csrf" value="([^"]+)"/.exec(await answer.text())![1]!
      }
      await fresh.reload()
      expect(retryAfter).toBeGreaterThanOrEqual(4)
      await fresh.getByLabel('User name').fill('admin')
      await fresh.getByLabel('Password').fill(adminPassword)
      await fresh.getByRole('button', { name: 'Sign in' }).click()
      expect(new URL(fresh.url()).pathname).toBe('/console/sign-in')
      expect(await fresh.locator('.notice.error').textContent()).toMatch(
        /too many failed sign-ins.*retry in \d+ s/,
      )
      expect((await browser.cookies()).some((entry) => entry.name === 'vault_session')).toBe(false)
      await fresh.close()
    })
  })
})
