/**
 * Statements for node-postgres: `?` placeholders rewritten to `$n` once per text, and each text given
 * a prepared-statement name, so a connection parses and plans it once and then only binds and runs
 * it (the generation read runs for every few requests, the token, revocation and scope statements on
 * every cache miss). `SELECT *` stays unnamed: its columns may change under a migration while a
 * connection keeps the old plan. Also the advisory lock keys of named locks.
 */
import { createHash } from 'node:crypto'
import type pg from 'pg'
import type { SqlExecutor, SqlRow, SqlValue } from './driver.js'

const converted = new Map<string, string>()
const names = new Map<string, string>()
const maxNamed = 1000

function toPostgres(sql: string): string {
  let text = converted.get(sql)
  if (text === undefined) {
    let index = 0
    text = sql.replace(/\?/g, () => `$${++index}`)
    converted.set(sql, text)
  }
  return text
}

function nameOf(text: string): string | undefined {
  let name = names.get(text)
  if (name === undefined && names.size < maxNamed && !/\bSELECT\s+\*/i.test(text)) {
    name = `vault_${names.size + 1}`
    names.set(text, name)
  }
  return name
}

/** The query config of `sql` with `values`: `$n` placeholders and, when cacheable, a statement name. */
export function statement(sql: string, values: unknown[], rowMode?: 'array'): pg.QueryConfig {
  const text = toPostgres(sql)
  return { text, values, name: nameOf(text), ...(rowMode ? { rowMode } : {}) }
}

/** Statements on one connection inside its own transaction (audit events appended at once). */
export function clientExecutor(client: pg.ClientBase): SqlExecutor {
  const query = async <R extends SqlRow>(sql: string, params: SqlValue[] = []) =>
    (await client.query<R>(statement(sql, params))).rows
  return {
    all: query,
    values: async (sql, params = []) =>
      (await client.query<SqlValue[]>(statement(sql, params, 'array'))).rows,
    run: async (sql, params = []) => (await client.query(statement(sql, params))).rowCount ?? 0,
    lockRows: (sql, params) => query(`${sql} FOR UPDATE`, params),
  }
}

/** The 64-bit advisory lock key of a lock name (as decimal text, for SQL). */
export function advisoryKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString()
}
