/**
 * SQLite adapter (node:sqlite): WAL, synchronous=FULL, foreign keys, BEGIN IMMEDIATE. Transactions of
 * one process are queued; transactions waiting together are committed as one group (each inside its
 * own SAVEPOINT, so one failing rolls back only itself), which turns many fsyncs into one without
 * acknowledging anything before it is durable.
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
  const prepare = (sql: string): StatementSync => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = db.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }
  const executor: SqlExecutor = {
    all: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) => prepare(sql).all(...params) as T[],
    run: async (sql, params = []) => Number(prepare(sql).run(...params).changes),
    lockRows: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      prepare(sql).all(...params) as T[],
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
