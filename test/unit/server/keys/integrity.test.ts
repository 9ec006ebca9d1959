/**
 * The integrity check of a whole vault database (src/server/keys/integrity.ts) on a real vault's SQLite
 * store, filled over HTTP: clean data passes; edits made in SQL, as an attacker with the database
 * but not the keys would make them (a permission widened, an audit event's detail changed, the audit
 * event of a version deleted), are each found and named (the table and id, the event's sequence
 * number, the secret and version the test removed), the start-up check refuses them, and no finding
 * carries a value. Every edit is undone after its test.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IntegrityError } from '../../../../src/errors.js'
import {
  assertStartupIntegrity,
  checkStoreIntegrity,
  integrityProblems,
  type IntegrityReport,
} from '../../../../src/server/keys/integrity.js'
import type { SqlValue } from '../../../../src/server/store/index.js'
import { startSeededVault, type SeededVault } from '../../../helpers/seeded-vault.js'
import { deploymentApi } from '../../../helpers/vault-server.js'

const canary = 'CANARY-integrity-61d0'

describe('checkStoreIntegrity', () => {
  let vault: SeededVault
  const driver = () => vault.server.running.context.driver
  const keys = () => vault.server.running.context.keyring
  const sql = (statement: string, params: SqlValue[] = []) =>
    driver().transaction((tx) => tx.all(statement, params))

  beforeAll(async () => {
    vault = await startSeededVault({ INTEGRITY_A: canary, INTEGRITY_B: 'b' })
    const api = deploymentApi(vault.server, join(vault.work, 'more'))
    await api.putSecret('INTEGRITY_A', `${canary}-2`, 'dev')
    // B: versions 1 and 2, then a rollback written as version 3 ("to version 1 as version 3")
    await api.putSecret('INTEGRITY_B', 'b-2', 'dev')
    await api.rollback('INTEGRITY_B', 1, 'dev')
  }, 60_000)
  afterAll(() => vault?.stop())

  /** Runs `edit`, then `check`, then puts the edited row back as it was (one row per `where`). */
  async function withEdit(table: string, where: string, edit: string, check: () => Promise<void>) {
    const saved = await sql(`SELECT * FROM ${table} WHERE ${where}`)
    expect(saved.length).toBeGreaterThan(0)
    await sql(edit)
    try {
      await check()
    } finally {
      const still = await sql(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`)
      for (const row of saved) {
        const columns = Object.keys(row)
        const values = Object.values(row) as SqlValue[]
        if (Number(still[0]!.n) > 0)
          await sql(
            `UPDATE ${table} SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE ${where}`,
            values,
          )
        else
          await sql(
            `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
            values,
          )
      }
    }
  }

  it('passes the data the vault wrote itself', async () => {
    const report = await checkStoreIntegrity(driver(), keys())
    expect(report.ok).toBe(true)
    expect(report.tamperedRows).toEqual([])
    expect(report.unauditedVersions).toEqual([])
    const [rollback] = await sql(`SELECT detail FROM audit_events WHERE action = 'secret.rollback'`)
    expect(rollback!.detail).toMatch(/to version 1 as version 3$/)
    const [{ n }] = (await sql('SELECT COUNT(*) AS n FROM audit_events')) as [{ n: number }]
    expect(report.audit.events).toBe(Number(n))
    expect(integrityProblems(report)).toEqual([])
    await assertStartupIntegrity(driver(), keys())
  })

  it('finds a permission widened in SQL, names the row, and the start-up check refuses it', async () => {
    const [identity] = (await sql(`SELECT id FROM identities ORDER BY id LIMIT 1`)) as [{ id: string }]
    await withEdit(
      'identities',
      `id = '${identity.id}'`,
      `UPDATE identities SET permissions = '{"*":["read","write","admin"]}' WHERE id = '${identity.id}'`,
      async () => {
        const report = await checkStoreIntegrity(driver(), keys())
        expect(report.ok).toBe(false)
        expect(report.tamperedRows.map((row) => [row.table, row.id])).toEqual([['identities', identity.id]])
        expect(integrityProblems(report)).toContain(
          `identities row ${identity.id} fails its MAC (edited outside the vault)`,
        )
        const error = await assertStartupIntegrity(driver(), keys()).catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(IntegrityError)
        expect((error as Error).message).toContain(`identities row ${identity.id} fails its MAC`)
      },
    )
    expect((await checkStoreIntegrity(driver(), keys())).ok).toBe(true)
  })

  it('finds an audit event edited in SQL, at its sequence number', async () => {
    const [event] = (await sql(`SELECT seq FROM audit_events ORDER BY seq LIMIT 1 OFFSET 2`)) as [
      { seq: number },
    ]
    await withEdit(
      'audit_events',
      `seq = ${event.seq}`,
      `UPDATE audit_events SET detail = 'nothing happened' WHERE seq = ${event.seq}`,
      async () => {
        const report = await checkStoreIntegrity(driver(), keys())
        expect(report.ok).toBe(false)
        expect(report.audit.brokenAt).toBe(Number(event.seq))
        expect(integrityProblems(report)[0]).toMatch(
          new RegExp(`^the audit chain is broken at event ${event.seq}: `),
        )
      },
    )
  })

  it('refuses at start-up an audit head edited in SQL', async () => {
    await withEdit('audit_head', 'id = 1', `UPDATE audit_head SET seq = seq - 1`, async () => {
      const error = await assertStartupIntegrity(driver(), keys()).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(IntegrityError)
      expect((error as Error).message).toMatch(/refusing to serve it/)
    })
    await assertStartupIntegrity(driver(), keys())
  })

  it('finds a version whose audit event is gone, naming the secret and version, never the value', async () => {
    const events = (await sql(
      `SELECT seq FROM audit_events WHERE target = 'INTEGRITY_A' AND action = 'secret.update' AND result = 'ok'`,
    )) as { seq: number }[]
    expect(events).toHaveLength(1)
    await withEdit(
      'audit_events',
      `seq = ${events[0]!.seq}`,
      `DELETE FROM audit_events WHERE seq = ${events[0]!.seq}`,
      async () => {
        // the chain is broken too; a verified chain is given, so that only the cross-check speaks
        const report = await checkStoreIntegrity(driver(), keys(), {
          chain: async () => ({ ok: true, events: 0 }),
        })
        expect(report.unauditedVersions).toEqual([
          { projectId: vault.server.projectId, environment: 'dev', name: 'INTEGRITY_A', version: 2 },
        ])
        expect(report.ok).toBe(false)
        const lines = integrityProblems(report)
        expect(lines).toEqual([
          'INTEGRITY_A version 2 (dev) has no audit event (the log was cut or the version inserted in SQL)',
        ])
        expect(lines.join('\n')).not.toContain(canary)
      },
    )
  })
})

describe('integrityProblems', () => {
  it('lists at most 20 rows and 20 versions, then how many more', () => {
    const report: IntegrityReport = {
      ok: false,
      audit: { ok: true, events: 3 },
      tamperedRows: Array.from({ length: 23 }, (_, i) => ({ table: 'secrets' as const, id: `s${i}` })),
      unauditedVersions: Array.from({ length: 21 }, (_, i) => ({
        projectId: 'p',
        environment: 'dev',
        name: `N${i}`,
        version: 1,
      })),
    }
    const lines = integrityProblems(report)
    expect(lines.filter((line) => line.startsWith('secrets row '))).toHaveLength(20)
    expect(lines).toContain('... and 3 more rows')
    expect(lines.filter((line) => line.includes('has no audit event'))).toHaveLength(20)
    expect(lines).toContain('... and 1 more versions without an audit event')
    expect(lines).toHaveLength(42)
  })
})
