import { mkdtempSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendAudit, startAuditChain } from '../../../../src/server/audit/audit.js'
import { AuditVerifier } from '../../../../src/server/audit/audit-verifier.js'
import { hostAdmin } from '../../../../src/server/humans/actor.js'
import { openStore } from '../../../../src/server/migrations.js'
import { verifyAuditOp } from '../../../../src/server/operations/audit.js'
import { createVaultContext, openVault } from '../../../../src/server/server.js'
import type { SqlDriver, SqlExecutor } from '../../../../src/server/store/index.js'

const key = Buffer.alloc(32, 9)
const walk = /FROM audit_events WHERE seq >= \?/

function event(index: number) {
  return {
    projectId: 'p',
    environment: 'dev',
    actor: 'identity:a',
    action: 'secret.read',
    target: `NAME_${index}`,
    result: 'ok' as const,
  }
}

async function append(driver: SqlDriver, auditKey: Buffer, count: number): Promise<void> {
  await driver.transaction(async (tx) => {
    for (let index = 0; index < count; index++) await appendAudit(tx, auditKey, event(index))
  })
}

/** `driver`, counting the audit events the chain walk reads. */
function counting(driver: SqlDriver): { driver: SqlDriver; walked: () => number } {
  let rows = 0
  const wrap = (tx: SqlExecutor): SqlExecutor => ({
    ...tx,
    all: async (sql, params) => {
      const found = await tx.all(sql, params)
      if (walk.test(sql)) rows += found.length
      return found as never
    },
  })
  return {
    driver: {
      ...driver,
      transaction: (work, options) => driver.transaction((tx) => work(wrap(tx)), options),
    },
    walked: () => {
      const seen = rows
      rows = 0
      return seen
    },
  }
}

describe('the audit view verifies incrementally', () => {
  it('walks only the events appended since the last view, and all of them on an explicit verify', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-audit-view-'))
    const opened = await openVault({
      dbUrl: `sqlite://${join(dir, 'vault.db')}`,
      encryptionKey: randomBytes(32),
    })
    try {
      const { driver, walked } = counting(opened.driver)
      const context = createVaultContext({
        driver,
        keyring: opened.keyring,
        config: {
          jwtSecret: randomBytes(32),
          trustedProxies: [],
          allowPrivateWebhooks: false,
          requestsPerMinute: 100,
        },
      })
      const call = { vault: context, actor: hostAdmin }
      await append(opened.driver, opened.keyring.auditKey, 2000)

      const first = await verifyAuditOp(call, { incremental: true })
      expect(first.ok).toBe(true)
      expect(walked()).toBeGreaterThanOrEqual(2000)

      await append(opened.driver, opened.keyring.auditKey, 7)
      const second = await verifyAuditOp(call, { incremental: true })
      expect(second).toMatchObject({ ok: true, audit: { ok: true, events: first.audit.events + 7 } })
      expect(walked()).toBe(7)

      const full = await verifyAuditOp(call)
      expect(full.audit.events).toBe(second.audit.events)
      expect(walked()).toBe(full.audit.events)
    } finally {
      await opened.driver.close()
    }
  })
})

describe('AuditVerifier (SQLite file)', () => {
  let driver: SqlDriver
  let path: string
  let verifier: AuditVerifier

  beforeEach(async () => {
    path = join(mkdtempSync(join(tmpdir(), 'vault-audit-verifier-')), 'vault.db')
    driver = await openStore(`sqlite://${path}`)
    await driver.transaction((tx) => startAuditChain(tx, key))
    await append(driver, key, 5)
    verifier = new AuditVerifier(driver, key)
    expect(await verifier.verify()).toMatchObject({ ok: true, events: 5 })
    expect(verifier.point?.seq).toBe(5)
    await append(driver, key, 3)
  })

  afterEach(async () => {
    await driver.close()
  })

  it('verifies the events appended since, by this process or another', async () => {
    const other = await openStore(`sqlite://${path}`)
    await append(other, key, 4)
    await other.close()
    expect(await verifier.verify()).toMatchObject({ ok: true, events: 12 })
    expect(verifier.point?.seq).toBe(12)
  })

  it.each([
    [
      'an edited event after the verified point',
      `UPDATE audit_events SET target = 'OTHER' WHERE seq = 7`,
      7,
      'event was modified',
    ],
    ['a deleted event after it', `DELETE FROM audit_events WHERE seq = 7`, 7, 'missing event'],
    [
      'deleted last events',
      `DELETE FROM audit_events WHERE seq >= 7`,
      6,
      'events after the last one were deleted',
    ],
    [
      'a tail cut back with the head rewritten',
      `DELETE FROM audit_events WHERE seq >= 7;
       UPDATE audit_head SET seq = 6, hash = (SELECT hash FROM audit_events WHERE seq = 6)`,
      6,
      'the audit head fails its MAC (the tail was truncated or the head rewritten)',
    ],
    [
      'a rehash of the verified event',
      `UPDATE audit_events SET hash = '${'0'.repeat(64)}' WHERE seq = 5`,
      5,
      'event was modified',
    ],
    [
      'a log cut back before the verified point',
      `DELETE FROM audit_events WHERE seq >= 4;
       UPDATE audit_head SET seq = 3, hash = (SELECT hash FROM audit_events WHERE seq = 3)`,
      3,
      'the audit head fails its MAC (the tail was truncated or the head rewritten)',
    ],
    [
      'a wiped log',
      `DELETE FROM audit_events; DELETE FROM audit_head`,
      1,
      'the audit head is missing (the log was wiped)',
    ],
  ])('detects %s, and again on the next view', async (_label, statement, brokenAt, reason) => {
    for (const part of statement.split(';')) await driver.transaction((tx) => tx.run(part))
    expect(await verifier.verify()).toMatchObject({ ok: false, brokenAt, reason })
    expect(await verifier.verify()).toMatchObject({ ok: false, brokenAt, reason })
    expect(verifier.point?.seq).toBe(5)
  })

  it('leaves events verified before to the full walk, which finds an edit of one', async () => {
    await driver.transaction((tx) => tx.run(`UPDATE audit_events SET target = 'OTHER' WHERE seq = 5`))
    // a view reads the events after its verified point only (the documented trade-off)
    expect(await verifier.verify()).toMatchObject({ ok: true, events: 8 })
    expect(await verifier.verify({ full: true })).toMatchObject({
      ok: false,
      brokenAt: 5,
      reason: 'event was modified',
    })
  })

  it('accepts a log the vault rebuilt under its key (a restore) by walking it whole', async () => {
    await driver.transaction(async (tx) => {
      await tx.run(`DELETE FROM audit_events`)
      await tx.run(`DELETE FROM audit_head`)
      await startAuditChain(tx, key)
    })
    await append(driver, key, 2)
    expect(await verifier.verify()).toMatchObject({ ok: true, events: 2 })
    expect(verifier.point?.seq).toBe(2)
  })

  it('refuses a log rebuilt under another key', async () => {
    const forged = Buffer.alloc(32, 1)
    await driver.transaction(async (tx) => {
      await tx.run(`DELETE FROM audit_events`)
      await tx.run(`DELETE FROM audit_head`)
      await startAuditChain(tx, forged)
    })
    await append(driver, forged, 9)
    expect(await verifier.verify()).toMatchObject({ ok: false })
  })
})
