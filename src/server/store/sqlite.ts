/**
 * SQLite adapter (node:sqlite): WAL, synchronous=FULL, foreign keys, BEGIN IMMEDIATE. Transactions of
 * one process are queued; transactions waiting together are committed as one group (each inside its
 * own SAVEPOINT, so one failing rolls back only itself), which turns many fsyncs into one without
 * acknowledging anything before it is durable. Statements are prepared once; SELECTs read rows as
 * arrays and name their columns here, which costs far less than node:sqlite's row objects.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { SqlDriver, SqlExecutor, SqlRow, SqlValue } from './driver.js'

interface QueuedWork {
  work: (tx: SqlExecutor) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

/**
 * A SELECT prepared once in array mode, with its column names (read again when SQLite re-prepared it
 * after a schema change altered its width, e.g. `SELECT *` after a column was added).
 */
interface Query {
  statement: StatementSync
  columns: string[]
}

const maxGroupSize = 64

/** Opens (creating when needed) the SQLite database at `path`. */
export function openSqlite(path: string): SqlDriver {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    if (!existsSync(path)) writeFileSync(path, '', { mode: 0o600 })
  }
  const db = new DatabaseSync(path)
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = FULL')
  db.exec('PRAGMA foreign_keys = ON')
  db.exec('PRAGMA busy_timeout = 10000')
  const statements = new Map<string, StatementSync>()
  const queries = new Map<string, Query>()
  const prepare = (sql: string): StatementSync => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = db.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }
  const query = (sql: string): Query => {
    let found = queries.get(sql)
    if (!found) {
      const statement = db.prepare(sql)
      statement.setReturnArrays(true)
      found = { statement, columns: statement.columns().map((column) => column.name) }
      queries.set(sql, found)
    }
    return found
  }
  const rowsOf = <T extends SqlRow>(sql: string, params: SqlValue[]): T[] => {
    const found = query(sql)
    const rows = found.statement.all(...params) as unknown as SqlValue[][]
    if (rows.length > 0 && rows[0]!.length !== found.columns.length) {
      found.columns = found.statement.columns().map((column) => column.name)
    }
    const { columns } = found
    return rows.map((values) => {
      const row: SqlRow = {}
      for (let index = 0; index < columns.length; index++) row[columns[index]!] = values[index]!
      return row as T
    })
  }
  const executor: SqlExecutor = {
    all: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) => rowsOf<T>(sql, params),
    values: async (sql, params = []) => query(sql).statement.all(...params) as unknown as SqlValue[][],
    run: async (sql, params = []) => Number(prepare(sql).run(...params).changes),
    lockRows: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) => rowsOf<T>(sql, params),
  }

  const queue: QueuedWork[] = []
  let draining = false

  async function drain(): Promise<void> {
    draining = true
    try {
      while (queue.length > 0) {
        const group = queue.splice(0, maxGroupSize)
        const outcomes: { ok: boolean; value: unknown }[] = []
        try {
          db.exec('BEGIN IMMEDIATE')
        } catch (error) {
          for (const item of group) item.reject(error)
          continue
        }
        for (const item of group) {
          db.exec('SAVEPOINT work')
          try {
            const value = await item.work(executor)
            db.exec('RELEASE work')
            outcomes.push({ ok: true, value })
          } catch (error) {
            db.exec('ROLLBACK TO work')
            db.exec('RELEASE work')
            outcomes.push({ ok: false, value: error })
          }
        }
        try {
          db.exec('COMMIT')
        } catch (error) {
          if (db.isTransaction) db.exec('ROLLBACK')
          for (const item of group) item.reject(error)
          continue
        }
        group.forEach((item, index) => {
          const outcome = outcomes[index]!
          if (outcome.ok) item.resolve(outcome.value)
          else item.reject(outcome.value)
        })
      }
    } finally {
      draining = false
    }
  }

  function transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
      if (!draining) {
        draining = true
        setImmediate(() => void drain())
      }
    })
  }

  return {
    engine: 'sqlite',
    transaction,
    exclusive: (_name, work) => transaction(work),
    close: async () => {
      while (draining || queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 5))
      if (db.isOpen) db.close()
    },
  }
}
