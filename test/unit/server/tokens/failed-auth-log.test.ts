import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { listAudit, type AuditEvent } from '../../../../src/server/audit/audit.js'
import { FailedAuthLog } from '../../../../src/server/tokens/failed-auth-log.js'
import { openVault } from '../../../../src/server/server.js'
import type { SqlDriver } from '../../../../src/server/store/index.js'

const stores: SqlDriver[] = []
afterAll(async () => {
  for (const driver of stores) await driver.close()
})

/** A real SQLite store in a temporary directory and a reader of its audit rows. */
async function auditStore() {
  const dir = mkdtempSync(join(tmpdir(), 'vault-failed-auth-'))
  const { driver, keyring } = await openVault({
    dbUrl: `sqlite://${join(dir, 'vault.db')}`,
    encryptionKey: randomBytes(32),
  })
  stores.push(driver)
  const rows = async () =>
    (await driver.transaction((tx) => listAudit(tx, { projectId: null, limit: 1000 }))).map((row) => ({
      ip: row.ip,
      detail: row.detail,
    }))
  return { rows, store: { driver, auditKey: keyring.auditKey } }
}

const failure = (ip: string): AuditEvent => ({
  projectId: null,
  actor: 'anonymous',
  action: 'auth.token',
  result: 'denied',
  ip,
  detail: 'invalid or expired token',
})

describe('FailedAuthLog', () => {
  it('writes one row per source per minute and carries the merged count into the next', async () => {
    const { rows, store } = await auditStore()
    const log = new FailedAuthLog(store)
    for (let i = 0; i < 100; i++) await log.record(failure('127.0.0.2'), undefined, 1000 + i)
    await log.record(failure('127.0.0.3'), undefined, 2000)
    expect((await rows()).map((row) => row.ip)).toEqual(['127.0.0.2', '127.0.0.3'])
    await log.record(failure('127.0.0.2'), undefined, 61_000)
    expect(await rows()).toHaveLength(3)
    expect((await rows())[2]!.detail).toBe('invalid or expired token (+99 coalesced earlier)')
  })

  it('flushes merged failures of past minutes as one summary row and nothing for quiet sources', async () => {
    const { rows, store } = await auditStore()
    const log = new FailedAuthLog(store)
    for (let i = 0; i < 5; i++) await log.record(failure('127.0.0.4'), undefined, i)
    await log.record(failure('127.0.0.5'), undefined, 0)
    await log.flush(60_000)
    expect((await rows()).map((row) => row.detail)).toEqual([
      'invalid or expired token',
      'invalid or expired token',
      '4 more like: invalid or expired token',
    ])
    // the summary is the source's row of this minute: a failure right after it is merged again
    await log.record(failure('127.0.0.4'), undefined, 60_500)
    expect(await rows()).toHaveLength(3)
  })

  it('counts an IPv6 /64 as one source', async () => {
    const { rows, store } = await auditStore()
    const log = new FailedAuthLog(store)
    for (let i = 1; i <= 50; i++) await log.record(failure(`2001:db8:0:1::${i.toString(16)}`), undefined, 0)
    expect(await rows()).toHaveLength(1)
  })

  it('stays bounded, writing the merged counts of the sources it forgets', async () => {
    const { rows, store } = await auditStore()
    const log = new FailedAuthLog(store, { maxSources: 2 })
    await log.record(failure('127.0.1.1'), undefined, 0)
    await log.record(failure('127.0.1.1'), undefined, 1)
    await log.record(failure('127.0.1.2'), undefined, 2)
    await log.record(failure('127.0.1.3'), undefined, 3)
    expect((await rows()).map((row) => `${row.ip} ${row.detail}`)).toEqual([
      '127.0.1.1 invalid or expired token',
      '127.0.1.2 invalid or expired token',
      '127.0.1.3 invalid or expired token',
      '127.0.1.1 1 more like: invalid or expired token',
    ])
  })
})
