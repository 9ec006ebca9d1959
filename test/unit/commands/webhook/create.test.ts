/**
 * `vault webhook create` in process on a real SQLite file initialised by `vault server init`: the
 * signing secret on stdout once (and nowhere else), --json's shape, a private receiver refused
 * without --allow-private (exit 2), a URL that is not http(s) refused, and a warning for plain http://
 * to another host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebhookCreate from '../../../../src/commands/webhook/create.js'
import WebhookList from '../../../../src/commands/webhook/list.js'
import { runCommand } from '../../../helpers/run-command.js'
import { initialisedAdminStore, type AdminStore } from '../../../helpers/admin-store.js'

// a database initialised in the hook: seconds on a loaded machine
const storeSetup = 60_000

let store: AdminStore
beforeAll(async () => {
  store = await initialisedAdminStore()
}, storeSetup)
afterAll(() => store?.cleanup())

describe('vault webhook create', () => {
  it('prints the signing secret once on stdout and the id on stderr', async () => {
    const created = await runCommand(WebhookCreate, ['https://93.184.215.14/hook', '-p', 'homelab'], {
      env: store.env,
    })
    expect(created.exitCode, created.stderr).toBe(0)
    const secret = created.stdout.trim()
    expect(secret.length).toBeGreaterThanOrEqual(32)
    expect(created.stdout).toBe(`${secret}\n`)
    expect(created.stderr).toMatch(/^webhook \S+ registered; the signing secret is shown once$/m)
    expect(created.stderr).not.toContain(secret)
    expect(created.stderr).not.toMatch(/warning/)
    const listed = await runCommand(WebhookList, ['-p', 'homelab'], { env: store.env })
    expect(listed.stdout).toContain('https://93.184.215.14/hook')
    expect(listed.stdout).not.toContain(secret)
  })

  it('answers --json with the id, the URL, the secret and the warnings, and nothing else on stdout', async () => {
    const created = await runCommand(
      WebhookCreate,
      ['http://10.20.30.40/hook', '-p', 'homelab', '--allow-private', '--json'],
      { env: store.env },
    )
    expect(created.exitCode, created.stderr).toBe(0)
    const answer = JSON.parse(created.stdout) as {
      id: string
      url: string
      secret: string
      warnings: string[]
    }
    expect(answer.url).toBe('http://10.20.30.40/hook')
    expect(answer.warnings.join('\n')).toMatch(/plain http:\/\//)
    expect(created.stderr).toMatch(/warning: .*plain http:\/\//)
    expect(created.stderr).not.toContain(answer.secret)
  })

  it.each([
    [
      'a private receiver without --allow-private',
      ['http://10.20.30.40/hook'],
      /refusing webhook receiver 10\.20\.30\.40/,
    ],
    [
      'loopback without --allow-private',
      ['http://127.0.0.1:9000/hook'],
      /refusing webhook receiver 127\.0\.0\.1/,
    ],
    ['a URL that is not http(s)', ['ftp://93.184.215.14/hook'], /webhook URLs are http\(s\)/],
    ['no URL', [], /Missing 1 required arg/],
  ])('refuses %s (exit 2) and registers nothing', async (_case, args, message) => {
    const before = await runCommand(WebhookList, ['-p', 'homelab', '--json'], { env: store.env })
    const refused = await runCommand(WebhookCreate, [...args, '-p', 'homelab'], { env: store.env })
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(message)
    expect(refused.stdout).toBe('')
    const after = await runCommand(WebhookList, ['-p', 'homelab', '--json'], { env: store.env })
    expect(after.stdout).toBe(before.stdout)
  })
})
