/**
 * Archive rows inserted into a real SQLite store: a hundred rows a statement, every row and value as
 * given; column names come from the archive, so one that is SQL (or differs from row to row, or is
 * `__proto__`) is refused before anything is inserted.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { clearTables, insertRows } from '../../../src/backup/insert-rows.js'
import { IntegrityError } from '../../../src/errors.js'
import { openStore } from '../../../src/server/migrations.js'
import type { SqlDriver, SqlExecutor, SqlRow } from '../../../src/server/store/index.js'

const dir = mkdtempSync(join(tmpdir(), 'insert-rows-'))
let driver: SqlDriver
let stores = 0

beforeEach(async () => {
  await driver?.close()
  driver = await openStore(`sqlite://${join(dir, `vault-${stores++}.db`)}`)
})
afterAll(async () => {
  await driver.close()
  rmSync(dir, { recursive: true, force: true })
})

const project = (index: number): SqlRow => ({
  id: `p${index}`,
  name: `project '${index}"; --`,
  created_at: '2026-01-01T00:00:00Z',
})

const projects = (tx: SqlExecutor) =>
  tx.all(`SELECT id, name, created_at FROM projects ORDER BY created_at, id`)

describe('insertRows', () => {
  it('inserts every row as given, a hundred a statement', async () => {
    const rows = Array.from({ length: 250 }, (_, index) => project(index))
    const statements: number[] = []
    await driver.transaction(async (tx) => {
      const counting = {
        ...tx,
        all: tx.all.bind(tx),
        run: (sql: string, params?: unknown[]) => {
          if (sql.startsWith('INSERT')) statements.push((params ?? []).length / 3)
          return tx.run(sql, params as never)
        },
      } as SqlExecutor
      await insertRows(counting, 'projects', rows)
    })
    expect(statements).toEqual([100, 100, 50])
    const stored = await driver.transaction(projects)
    expect(new Set(stored.map((row) => JSON.stringify(row)))).toEqual(
      new Set(rows.map((row) => JSON.stringify(row))),
    )
  })

  it.each([
    ['a column name that is SQL', [{ 'id) VALUES (1); DROP TABLE projects; --': 'x' }]],
    ['an upper-case column', [{ ID: 'x' }]],
    ['rows of another shape', [project(1), { id: 'p2', name: 'n' }]],
    ['columns in another order', [project(1), { name: 'n', id: 'p2', created_at: 'x' }]],
    ['a row that is null', [project(1), null as unknown as SqlRow]],
  ])('refuses %s before inserting anything', async (_, rows) => {
    const error = await driver
      .transaction((tx) => insertRows(tx, 'projects', rows as SqlRow[]))
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(IntegrityError)
    expect((error as Error).message).toBe(
      "the archive's rows of table projects have unexpected columns; nothing was changed",
    )
    expect(await driver.transaction(projects)).toEqual([])
  })

  it('leaves a column of the right form that the table lacks (__proto__) to the database, which refuses it', async () => {
    const row = JSON.parse('{"id": "p1", "name": "n", "created_at": "x", "__proto__": "x"}') as SqlRow
    await expect(driver.transaction((tx) => insertRows(tx, 'projects', [row]))).rejects.toThrow(/__proto__/)
    expect(await driver.transaction(projects)).toEqual([])
  })

  it('inserts nothing for no rows or rows without columns', async () => {
    await driver.transaction((tx) => insertRows(tx, 'projects', []))
    await driver.transaction((tx) => insertRows(tx, 'projects', [{}]))
    expect(await driver.transaction(projects)).toEqual([])
  })
})

describe('clearTables', () => {
  it('empties every table, children first', async () => {
    await driver.transaction(async (tx) => {
      await insertRows(tx, 'projects', [project(1)])
      await insertRows(tx, 'environments', [
        { project_id: 'p1', slug: 'prod', name: 'prod', created_at: '2026-01-01T00:00:00Z' },
      ])
    })
    await driver.transaction((tx) => clearTables(tx))
    expect(await driver.transaction(projects)).toEqual([])
    expect(await driver.transaction((tx) => tx.all(`SELECT * FROM environments`))).toEqual([])
  })
})
