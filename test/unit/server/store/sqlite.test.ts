import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportTables, importTables, type SqlDriver } from '../../../../src/server/store/index.js'
import { openStore, schemaVersion } from '../../../../src/server/migrations.js'

const newPath = () => join(mkdtempSync(join(tmpdir(), 'vault-store-')), 'vault.db')

describe('SQLite adapter', () => {
  let driver: SqlDriver
  beforeEach(async () => {
    driver = await openStore(`sqlite://${newPath()}`)
  })
  afterEach(async () => {
    await driver.close()
  })

  it('commits transactions queued together as a group, rolling back only the one that failed', async () => {
    const insert = (key: string) =>
      driver.transaction((tx) => tx.run(`INSERT INTO meta (key, value) VALUES (?, 'x')`, [key]))
    const failing = driver.transaction(async (tx) => {
      await tx.run(`INSERT INTO meta (key, value) VALUES ('failed', 'x')`)
      throw new Error('boom')
    })
    const results = await Promise.allSettled([insert('a'), failing, insert('b'), insert('a')])
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected'])
    const keys = await driver.transaction((tx) =>
      tx.all<{ key: string }>(`SELECT key FROM meta ORDER BY key`),
    )
    expect(keys.map((row) => row.key)).toEqual(['a', 'b'])
  })

  it('reads rows as named objects with `all` and as arrays in column order with `values`', async () => {
    await driver.transaction((tx) => tx.run(`INSERT INTO meta (key, value) VALUES ('a', 'x'), ('b', 'y')`))
    const sql = `SELECT value, key, LENGTH(key) AS size FROM meta WHERE key IN (?, ?) ORDER BY key`
    const [objects, arrays] = await driver.transaction(
      async (tx) => [await tx.all(sql, ['a', 'b']), await tx.values(sql, ['a', 'b'])] as const,
    )
    expect(objects).toEqual([
      { value: 'x', key: 'a', size: 1 },
      { value: 'y', key: 'b', size: 1 },
    ])
    expect(arrays).toEqual([
      ['x', 'a', 1],
      ['y', 'b', 1],
    ])
  })

  it('names the columns of a cached SELECT * again after a column was added', async () => {
    await driver.transaction((tx) => tx.run(`INSERT INTO meta (key, value) VALUES ('a', 'x')`))
    const select = () => driver.transaction((tx) => tx.all(`SELECT * FROM meta`))
    expect(await select()).toEqual([{ key: 'a', value: 'x' }])
    await driver.transaction((tx) => tx.run(`ALTER TABLE meta ADD COLUMN note TEXT DEFAULT 'n'`))
    expect(await select()).toEqual([{ key: 'a', value: 'x', note: 'n' }])
  })

  it('refuses a database whose schema is newer than this binary', async () => {
    const path = newPath()
    const first = await openStore(`sqlite://${path}`)
    await first.transaction((tx) =>
      tx.run(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 'later')`, [schemaVersion + 1]),
    )
    await first.close()
    await expect(openStore(path)).rejects.toThrow(/newer than this vault/)
  })

  it('exports every table as JSON rows and imports them into an empty database', async () => {
    await driver.transaction((tx) =>
      tx.run(`INSERT INTO projects (id, name, created_at) VALUES ('p1', 'demo', 'now')`),
    )
    const exported = await exportTables(driver)
    expect(exported.projects).toEqual([{ id: 'p1', name: 'demo', created_at: 'now' }])
    const target = await openStore(newPath())
    try {
      await importTables(target, JSON.parse(JSON.stringify(exported)))
      expect((await exportTables(target)).projects).toEqual(exported.projects)
    } finally {
      await target.close()
    }
  })

  it.each(['mongodb://db/vault', 'mysql://db/vault'])(
    'refuses the DB_URL %s with a clear error',
    async (url) => {
      await expect(openStore(url)).rejects.toThrow(/is not supported/)
    },
  )
})
