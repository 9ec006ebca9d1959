/**
 * Writes a PNG of each console page to docs/console-*.png: starts the built `vault server --dev` on a
 * temporary directory (admin password from VAULT_ADMIN_PASSWORD, loopback only), drives Debian's chromium
 * through sign-in, secrets, history, reveal, rollback, identities, webhooks and the audit log, then stops
 * the server and removes the directory. Run after `make build`: `npx tsx scripts/console-screenshots.ts`.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { launchChromium } from '../test/helpers/browser.js'

const root = resolve(import.meta.dirname, '..')
const work = mkdtempSync(join(tmpdir(), 'vault-screenshots-'))
const password = randomBytes(18).toString('base64url')
const server = spawn(
  process.execPath,
  [
    join(root, 'bin/run.js'),
    'server',
    '--dev',
    '--data-dir',
    join(work, 'vault'),
    '--port',
    '0',
    '--init-project',
    'homelab',
  ],
  {
    env: {
      PATH: process.env.PATH,
      HOME: work,
      VAULT_ADMIN_PASSWORD: password,
      VAULT_ALLOW_PRIVATE_WEBHOOKS: 'true',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  },
)

async function main(): Promise<void> {
  const url = await new Promise<string>((done, fail) => {
    let log = ''
    server.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString()
      const found = /vault server listening on (\S+)/.exec(log)
      if (found) done(found[1]!)
    })
    server.once('exit', () => fail(new Error(`the server stopped:\n${log}`)))
  })
  const { browser, close } = await launchChromium(process.env.VAULT_TEST_CHROMIUM ?? '/usr/bin/chromium', {
    width: 1100,
    height: 720,
  })
  const page = await browser.newPage()
  const shot = (name: string) =>
    page.screenshot({ path: join(root, 'docs', `console-${name}.png`), fullPage: true })
  await page.goto(`${url}/`)
  await page.getByLabel('User name').fill('admin')
  await shot('sign-in')
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(/\/console\/projects$/)
  await shot('projects')
  await page.getByRole('link', { name: 'dev', exact: true }).click()
  for (const [name, value] of [
    ['DATABASE_PASSWORD', 'first'],
    ['SMTP_PASSWORD', 'x'],
    ['API_TOKEN', 'y'],
  ]) {
    await page.getByLabel('Name').fill(name!)
    await page.getByLabel('Value').fill(value!)
    await page.getByRole('button', { name: 'Create secret' }).click()
    await page.getByRole('link', { name: /homelab \/ dev/ }).click()
  }
  await shot('environment')
  await page.getByRole('link', { name: 'DATABASE_PASSWORD' }).click()
  await page.getByLabel('New value').fill('second')
  await page.getByRole('button', { name: 'Save as version 2' }).click()
  await page.getByRole('link', { name: 'Roll back to this' }).click()
  await shot('rollback-confirm')
  await page.getByRole('button', { name: 'Roll back to version 1' }).click()
  await shot('history')
  await page.getByRole('row', { name: /^3 / }).getByRole('button', { name: 'Reveal' }).click()
  await shot('reveal')
  await page.goto(`${url}/console/projects/homelab/environments/dev/secrets/API_TOKEN/delete`)
  await shot('delete-confirm')
  await page.goto(`${url}/console/projects/homelab/identities`)
  await page.getByLabel('Name').fill('ci-deploy')
  await page.getByLabel('Permissions').fill('dev=read;staging=read')
  await page.getByRole('button', { name: 'Create identity' }).click()
  await shot('identity-created')
  await page.goto(`${url}/console/projects/homelab/identities`)
  await shot('identities')
  await page.goto(`${url}/console/projects/homelab/webhooks`)
  await page.getByLabel('Receiver URL').fill('http://127.0.0.1:9/vault-hook')
  await page.getByRole('button', { name: 'Add webhook' }).click()
  await page.goto(`${url}/console/projects/homelab/webhooks`)
  await shot('webhooks')
  await page.goto(`${url}/console/projects/homelab/audit`)
  await shot('audit')
  await close()
}

await main()
  .catch((error: unknown) => {
    process.stderr.write(`console-screenshots: ${(error as Error).message}\n`)
    process.exitCode = 1
  })
  .finally(() => {
    server.kill('SIGTERM')
    rmSync(work, { recursive: true, force: true })
  })
