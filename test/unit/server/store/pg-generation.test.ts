/**
 * Every table of the schema is classified for the read caches (store/pg-generation.ts): either its
 * changes move a generation, or a reason says why nothing cached depends on it. A new table that
 * nobody classified fails here (on SQLite, which has the same tables; the PostgreSQL integration test
 * checks the installed triggers).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openStore } from '../../../../src/server/migrations.js'
import { generationTables, tablesWithoutGeneration } from '../../../../src/server/store/pg-generation.js'

const dir = mkdtempSync(join(tmpdir(), 'vault-generation-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('generation tables', () => {
  it('classifies each table of the schema exactly once', async () => {
    const driver = await openStore(`sqlite://${join(dir, 'vault.db')}`)
    try {
      const rows = await driver.transaction((tx) =>
        tx.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`),
      )
      const postgresOnly = ['vault_generation']
      const classified = [...Object.keys(generationTables), ...Object.keys(tablesWithoutGeneration)]
      expect(new Set(classified).size).toBe(classified.length)
      expect(rows.map((row) => row.name)).toEqual(
        classified.filter((table) => !postgresOnly.includes(table)).sort(),
      )
    } finally {
      await driver.close()
    }
  })

  it.each(Object.entries(tablesWithoutGeneration))('says why %s moves no generation', (_table, reason) => {
    expect(reason.length).toBeGreaterThan(20)
  })
})
