/**
 * `vault webhook delete` in process on a real SQLite file initialised by `vault server init`: the
 * webhook is stopped (listed as disabled), --json's shape, and an unknown or already stopped id exits 5.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebhookCreate from '../../../../src/commands/webhook/create.js'
import WebhookDelete from '../../../../src/commands/webhook/delete.js'
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

describe('vault webhook delete', () => {
  it('stops a webhook, answers --json, and refuses it a second time (exit 5)', async () => {
    const env = store.env
    const created = await runCommand(
      WebhookCreate,
      ['https://93.184.215.14/hook', '-p', 'homelab', '--json'],
      {
        env,
      },
    )
    const { id } = JSON.parse(created.stdout) as { id: string }
    const stopped = await runCommand(WebhookDelete, [id, '-p', 'homelab', '--json'], { env })
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(JSON.parse(stopped.stdout)).toEqual({ id, disabled: true })
    const listed = JSON.parse(
      (await runCommand(WebhookList, ['-p', 'homelab', '--json'], { env })).stdout,
    ) as {
      webhooks: { id: string; disabled: boolean }[]
    }
    expect(listed.webhooks).toEqual([expect.objectContaining({ id, disabled: true })])
    const again = await runCommand(WebhookDelete, [id, '-p', 'homelab'], { env })
    expect(again.exitCode).toBe(5)
    expect(again.stderr).toContain(`no active webhook ${id} in this project`)
  })

  it('says which webhook it stopped on stderr, nothing on stdout', async () => {
    const env = store.env
    const created = await runCommand(
      WebhookCreate,
      ['https://93.184.215.14/other', '-p', 'homelab', '--json'],
      {
        env,
      },
    )
    const { id } = JSON.parse(created.stdout) as { id: string }
    const stopped = await runCommand(WebhookDelete, [id, '-p', 'homelab'], { env })
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(stopped.stdout).toBe('')
    expect(stopped.stderr).toContain(`webhook ${id} stopped`)
  })

  it('refuses an unknown id (exit 5) and a missing one (exit 2)', async () => {
    const unknown = await runCommand(
      WebhookDelete,
      ['3f0c9a52-7d1e-4f7a-9b0e-2a4c6d8e1f00', '-p', 'homelab'],
      {
        env: store.env,
      },
    )
    expect(unknown.exitCode).toBe(5)
    expect((await runCommand(WebhookDelete, ['-p', 'homelab'], { env: store.env })).exitCode).toBe(2)
  })
})
