/**
 * `vault webhook list` in process on a real SQLite file initialised by `vault server init`: an empty
 * project prints nothing, a table (ID, URL, CREATED, STATE) and --json's shape, a stopped webhook shown
 * as disabled, and URL userinfo hidden in the listing and the audit log (moved from the spawned
 * test/adversarial/server/webhook-ssrf.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import AuditList from '../../../../src/commands/audit/list.js'
import WebhookCreate from '../../../../src/commands/webhook/create.js'
import WebhookDelete from '../../../../src/commands/webhook/delete.js'
import WebhookList from '../../../../src/commands/webhook/list.js'
import { openDriver } from '../../../../src/server/store/index.js'
import { runCommand } from '../../../helpers/run-command.js'
import { initialisedAdminStore, type AdminStore } from '../../../helpers/admin-store.js'

// a database initialised in the hook: seconds on a loaded machine
const storeSetup = 60_000

let store: AdminStore
beforeAll(async () => {
  store = await initialisedAdminStore()
}, storeSetup)
afterAll(() => store?.cleanup())

interface Listed {
  webhooks: { id: string; url: string; createdAt: string; disabled: boolean }[]
}

describe('vault webhook list', () => {
  it('prints nothing for a project without webhooks, and an empty list as --json', async () => {
    const plain = await runCommand(WebhookList, ['-p', 'homelab'], { env: store.env })
    expect(plain.exitCode, plain.stderr).toBe(0)
    expect(plain.stdout).toBe('')
    const json = await runCommand(WebhookList, ['-p', 'homelab', '--json'], { env: store.env })
    expect(JSON.parse(json.stdout)).toEqual({ webhooks: [] })
  })

  it('lists active and stopped webhooks as a table and as --json', async () => {
    const env = store.env
    const first = await runCommand(WebhookCreate, ['https://93.184.215.14/a', '-p', 'homelab', '--json'], {
      env,
    })
    const second = await runCommand(WebhookCreate, ['https://93.184.215.14/b', '-p', 'homelab', '--json'], {
      env,
    })
    const [a, b] = [first, second].map((run) => (JSON.parse(run.stdout) as { id: string }).id)
    expect((await runCommand(WebhookDelete, [b!, '-p', 'homelab'], { env })).exitCode).toBe(0)
    const table = await runCommand(WebhookList, ['-p', 'homelab'], { env })
    const lines = table.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID +URL +CREATED +STATE$/)
    expect(lines.find((line) => line.startsWith(a!))).toMatch(/https:\/\/93\.184\.215\.14\/a +\S+ +active$/)
    expect(lines.find((line) => line.startsWith(b!))).toMatch(/https:\/\/93\.184\.215\.14\/b +\S+ +disabled$/)
    const json = JSON.parse(
      (await runCommand(WebhookList, ['-p', 'homelab', '--json'], { env })).stdout,
    ) as Listed
    expect(json.webhooks).toEqual(
      expect.arrayContaining([
        { id: a, url: 'https://93.184.215.14/a', createdAt: expect.any(String), disabled: false },
        { id: b, url: 'https://93.184.215.14/b', createdAt: expect.any(String), disabled: true },
      ]),
    )
  })

  it('hides URL userinfo in listings and in the audit log', async () => {
    const env = store.env
    const created = await runCommand(
      WebhookCreate,
      ['http://hookuser:userinfo-canary@10.20.30.40/hook', '--project', 'homelab', '--allow-private'],
      { env },
    )
    expect(created.exitCode, created.stderr).toBe(0)
    expect(created.stderr).toMatch(/plain http:\/\//)
    expect(created.stderr).not.toContain('userinfo-canary')
    for (const args of [
      ['--project', 'homelab'],
      ['--project', 'homelab', '--json'],
    ]) {
      const listed = await runCommand(WebhookList, args, { env })
      expect(listed.exitCode).toBe(0)
      expect(listed.stdout).toContain('***@10.20.30.40')
      expect(listed.stdout).not.toContain('userinfo-canary')
    }
    const audit = await runCommand(AuditList, ['--json'], { env })
    expect(audit.exitCode, audit.stderr).toBe(0)
    expect(audit.stdout).toMatch(/webhook/)
    expect(audit.stdout).not.toContain('userinfo-canary')
    // every stored audit row, as the database holds it
    const driver = openDriver(env.DB_URL)
    try {
      const rows = await driver.transaction((tx) => tx.all(`SELECT * FROM audit_events`))
      expect(rows.length).toBeGreaterThan(0)
      for (const row of rows) expect(JSON.stringify(row)).not.toContain('userinfo-canary')
    } finally {
      await driver.close()
    }
  })

  it('refuses an unknown project (exit 5)', async () => {
    const unknown = await runCommand(WebhookList, ['-p', 'nowhere'], { env: store.env })
    expect(unknown.exitCode).toBe(5)
  })
})
