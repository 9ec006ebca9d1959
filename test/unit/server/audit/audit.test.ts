import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendAudit, startAuditChain } from '../../../../src/server/audit/audit.js'
import { verifyAuditChain } from '../../../../src/server/audit/audit-verify.js'
import { type SqlDriver } from '../../../../src/server/store/index.js'
import { openStore } from '../../../../src/server/migrations.js'

const key = Buffer.alloc(32, 9)

describe('audit hash chain (SQLite file)', () => {
  let driver: SqlDriver
  beforeEach(async () => {
    driver = await openStore(`sqlite://${join(mkdtempSync(join(tmpdir(), 'vault-audit-')), 'vault.db')}`)
    await driver.transaction((tx) => startAuditChain(tx, key))
    for (let i = 0; i < 5; i++) {
      await driver.transaction((tx) =>
        appendAudit(tx, key, {
          projectId: 'p',
          environment: 'dev',
          actor: 'identity:a',
          action: 'secret.read',
          target: `NAME_${i}`,
          result: 'ok',
        }),
      )
    }
  })
  afterEach(async () => {
    await driver.close()
  })

  it('verifies an untouched chain', async () => {
    expect(await verifyAuditChain(driver, key)).toMatchObject({ ok: true, events: 5 })
  })

  it.each([
    ['an edited event', `UPDATE audit_events SET target = 'OTHER' WHERE seq = 3`, 3, 'event was modified'],
    ['a deleted middle event', `DELETE FROM audit_events WHERE seq = 2`, 2, 'missing event'],
    [
      'deleted last events',
      `DELETE FROM audit_events WHERE seq >= 4`,
      3,
      'events after the last one were deleted',
    ],
    [
      'a truncated tail with the head rewritten to the last remaining event',
      `DELETE FROM audit_events WHERE seq >= 4;
       UPDATE audit_head SET seq = 3, hash = (SELECT hash FROM audit_events WHERE seq = 3)`,
      3,
      'the audit head fails its MAC (the tail was truncated or the head rewritten)',
    ],
    [
      'a wiped log (every event and the head deleted)',
      `DELETE FROM audit_events; DELETE FROM audit_head`,
      1,
      'the audit head is missing (the log was wiped)',
    ],
    [
      'a wiped log with the head reset to the empty log',
      `DELETE FROM audit_events; UPDATE audit_head SET seq = 0, hash = '${'0'.repeat(64)}'`,
      0,
      'the audit head fails its MAC (the tail was truncated or the head rewritten)',
    ],
    [
      'an event inserted after the head',
      `INSERT INTO audit_events (seq, at, actor, action, result, prev_hash, hash)
         SELECT 6, at, actor, action, result, hash, hash FROM audit_events WHERE seq = 5`,
      6,
      'events beyond the audit head (inserted outside the vault)',
    ],
    [
      'a rehashed event without the key',
      `UPDATE audit_events SET hash = '${'0'.repeat(64)}' WHERE seq = 5`,
      5,
      'event was modified',
    ],
  ])('detects %s', async (_label, statement, brokenAt, reason) => {
    for (const part of statement.split(';')) await driver.transaction((tx) => tx.run(part))
    expect(await verifyAuditChain(driver, key)).toMatchObject({ ok: false, brokenAt, reason })
  })

  it('fails verification under another key', async () => {
    expect((await verifyAuditChain(driver, Buffer.alloc(32, 1))).ok).toBe(false)
  })
})
