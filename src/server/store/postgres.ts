/**
 * PostgreSQL adapter (pg): a connection pool, one client per transaction, `?` placeholders rewritten
 * to `$n`, row locks with FOR UPDATE and transaction-scoped advisory locks for one-time work.
 */
import { createHash } from 'node:crypto'
import pg from 'pg'
import type { SqlDriver, SqlExecutor, SqlRow, SqlValue } from './driver.js'

const placeholderCache = new Map<string, string>()

function toPostgres(sql: string): string {
  let converted = placeholderCache.get(sql)
  if (converted === undefined) {
    let index = 0
    converted = sql.replace(/\?/g, () => `$${++index}`)
    placeholderCache.set(sql, converted)
  }
  return converted
}

function advisoryKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString()
}

/** Opens a pool on the PostgreSQL database at `url`. */
export function openPostgres(url: string, poolSize = 10): SqlDriver {
  const pool = new pg.Pool({ connectionString: url, max: poolSize })
  pool.on('error', () => undefined)

  async function transaction<T>(work: (tx: SqlExecutor) => Promise<T>, lockName?: string): Promise<T> {
    const client = await pool.connect()
    const query = async <R extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      (await client.query<R>({ text: toPostgres(sql), values: params })).rows
    const executor: SqlExecutor = {
      all: query,
      values: async (sql, params = []) =>
        (await client.query<SqlValue[]>({ text: toPostgres(sql), values: params, rowMode: 'array' })).rows,
      run: async (sql, params = []) =>
        (await client.query({ text: toPostgres(sql), values: params })).rowCount ?? 0,
      lockRows: (sql, params) => query(`${sql} FOR UPDATE`, params),
    }
    try {
      await client.query('BEGIN')
      if (lockName) await client.query('SELECT pg_advisory_xact_lock($1)', [advisoryKey(lockName)])
      const result = await work(executor)
      await client.query('COMMIT')
      client.release()
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      client.release()
      throw error
    }
  }

  return {
    engine: 'postgres',
    transaction: (work) => transaction(work),
    exclusive: (name, work) => transaction(work, name),
    close: () => pool.end(),
  }
}
