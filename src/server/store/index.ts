/**
 * Opening a store from a DB_URL: `sqlite:///path`, a bare path or `postgres://`; other schemes get a
 * clear refusal. Also the engine-neutral export/import of every table that backups build on.
 */
import { resolve } from 'node:path'
import { UsageError } from '../../errors.js'
import type { SqlDriver, SqlRow } from './driver.js'
import { tablesInOrder } from './tables.js'
import { openPostgres } from './postgres.js'
import { openSqlite } from './sqlite.js'

export type { SqlDriver, SqlExecutor, SqlRow, SqlValue } from './driver.js'
export { tablesInOrder } from './tables.js'

/** Where a DB_URL points: a SQLite file or a PostgreSQL connection string. */
export type DbTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string }

/** The engine and location of `dbUrl` (`sqlite:///path`, a bare path or `postgres://`); refuses other schemes. */
export function parseDbUrl(dbUrl: string): DbTarget {
  if (/^postgres(ql)?:\/\//.test(dbUrl)) return { engine: 'postgres', url: dbUrl }
  if (dbUrl.startsWith('sqlite://')) {
    return { engine: 'sqlite', path: resolve(decodeURIComponent(dbUrl.slice('sqlite://'.length))) }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(dbUrl)) {
    const scheme = dbUrl.slice(0, dbUrl.indexOf(':'))
    throw new UsageError(`DB_URL scheme '${scheme}' is not supported`, {
      hint: 'use sqlite:///path/vault.db (or a bare path) or postgres://user:pass@host/db',
    })
  }
  return { engine: 'sqlite', path: resolve(dbUrl) }
}

/** Opens the engine for a DB_URL without migrating. */
export function openDriver(dbUrl: string): SqlDriver {
  const target = parseDbUrl(dbUrl)
  return target.engine === 'postgres' ? openPostgres(target.url) : openSqlite(target.path)
}

/** Every row of every table, engine-neutral (JSON-safe), with the schema version. */
export async function exportTables(driver: SqlDriver): Promise<Record<string, SqlRow[]>> {
  return driver.transaction(async (tx) => {
    const tables: Record<string, SqlRow[]> = {}
    for (const table of tablesInOrder) tables[table] = await tx.all(`SELECT * FROM ${table}`)
    return tables
  })
}

/** Inserts exported rows into an empty, migrated database (same schema version). */
export async function importTables(driver: SqlDriver, tables: Record<string, SqlRow[]>): Promise<void> {
  await driver.transaction(async (tx) => {
    for (const table of tablesInOrder) {
      for (const row of tables[table] ?? []) {
        const columns = Object.keys(row)
        await tx.run(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
          columns.map((column) => row[column] ?? null),
        )
      }
    }
  })
}
