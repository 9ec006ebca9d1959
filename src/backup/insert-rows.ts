/**
 * Inserting archive rows into a store inside a transaction the caller owns (so a restore into
 * PostgreSQL can clear and reload the live tables in one transaction), with multi-row INSERTs to keep
 * round trips few on large databases.
 */
import { IntegrityError } from '../errors.js'
import { tablesInOrder, type SqlExecutor, type SqlRow, type SqlValue } from '../server/store/index.js'

const rowsPerStatement = 100

/** Called after each table is loaded. */
export type LoadProgress = (table: string, rows: number) => void

/** Inserts `rows` of `table` through `tx`, a hundred rows a statement. */
export async function insertRows(tx: SqlExecutor, table: string, rows: SqlRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    await insertBatch(tx, table, rows.slice(start, start + rowsPerStatement))
  }
}

/** Deletes every row of every table, children first, through `tx` (and every sign-in session: not backed up). */
export async function clearTables(tx: SqlExecutor): Promise<void> {
  await tx.run(`DELETE FROM human_sessions`)
  for (const table of [...tablesInOrder].reverse()) await tx.run(`DELETE FROM ${table}`)
}

async function insertBatch(tx: SqlExecutor, table: string, rows: SqlRow[]): Promise<void> {
  const columns = Object.keys(rows[0] ?? {})
  if (columns.length === 0) return
  const sameShape = (row: SqlRow) =>
    typeof row === 'object' && row !== null && Object.keys(row).join(',') === columns.join(',')
  if (!columns.every((column) => /^[a-z_][a-z0-9_]*$/.test(column)) || !rows.every(sameShape)) {
    throw new IntegrityError(
      `the archive's rows of table ${table} have unexpected columns; nothing was changed`,
    )
  }
  const placeholders = `(${columns.map(() => '?').join(', ')})`
  const values: SqlValue[] = []
  for (const row of rows) for (const column of columns) values.push(row[column] ?? null)
  await tx.run(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${rows.map(() => placeholders).join(', ')}`,
    values,
  )
}
