/**
 * A change-feed client that never reads must not make the server hold the environment's whole history
 * in memory: the stream waits for the socket to drain before it reads the next page.
 */
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendAudit } from '../../../src/server/audit/audit.js'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'

const changes = 20_000

describe('a change-feed client that does not read', () => {
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    vault = await startVaultServer()
    token = await vault.token(vault.deploymentCredentials)
    const { driver, keyring } = vault.running.context
    await driver.transaction(async (tx) => {
      for (let index = 0; index < changes; index++)
        await appendAudit(tx, keyring.auditKey, {
          projectId: vault.projectId,
          environment: 'dev',
          actor: 'identity:history',
          action: 'secret.update',
          target: `HISTORY_${'X'.repeat(240)}_${index}`,
          result: 'ok',
          detail: `version ${index + 2}`,
        })
    })
  }, 120_000)
  afterAll(() => vault?.stop())

  it('holds a bounded amount for it, however long the history it resumes from', async () => {
    const served: Socket[] = []
    const onConnection = (socket: Socket) => served.push(socket)
    vault.running.server.on('connection', onConnection)
    const { port } = new URL(vault.url)
    const client = connect({ host: '127.0.0.1', port: Number(port) })
    try {
      await new Promise<void>((resolve) => client.once('connect', resolve))
      client.pause()
      client.write(
        `GET /api/v1/events?environment=dev HTTP/1.1\r\nhost: vault\r\nauthorization: Bearer ${token}\r\n` +
          `last-event-id: 0\r\naccept: text/event-stream\r\n\r\n`,
      )
      let held = 0
      const deadline = Date.now() + 4_000
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        for (const socket of served) held = Math.max(held, socket.writableLength)
      }
      expect(served.length).toBeGreaterThan(0)
      // the history is about 7 MB of events; the server may hold a page or so of it, not all
      expect(held).toBeLessThan(512 * 1024)
    } finally {
      client.destroy()
      vault.running.server.off('connection', onConnection)
    }
  })
})
