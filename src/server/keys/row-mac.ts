/**
 * Row MACs: the security-relevant rows of the live database (an identity's permissions, client-secret
 * hash and revocation, a secret's version pointer, a webhook's URL and state) carry an HMAC under a
 * key derived from the root key (so do a human account's name, role and password hash, and a sign-in
 * session's owner, expiry and end, an identity's OIDC trust), so an edit made directly in SQL, by someone without ENCRYPTION_KEY,
 * shows at start-up and in `vault audit verify`. Every write path re-seals the row it changed
 * (`sealRow`) inside its own transaction.
 */
import { timingSafeEqual } from 'node:crypto'
import { paceRows } from '../../process/gc-pacer.js'
import { hmacSha256 } from './hmac.js'
import type { SqlExecutor, SqlRow } from '../store/index.js'

/** The tables whose rows carry a `row_mac`, with the columns the MAC covers (the key column first). */
export const protectedColumns = {
  identities: ['id', 'project_id', 'name', 'client_id', 'secret_hash', 'permissions', 'revoked_at'],
  secrets: ['id', 'project_id', 'environment', 'name', 'version', 'deleted'],
  webhooks: ['id', 'project_id', 'url', 'sealed_secret', 'disabled_at'],
  admins: ['id', 'username', 'password_hash', 'role'],
  human_sessions: ['id', 'user_id', 'kind', 'created_at', 'expires_at', 'ended_at'],
} as const

export type ProtectedTable = keyof typeof protectedColumns

/**
 * Columns added after a table was first sealed, which its MAC covers (by name) only when they hold a
 * value: a row sealed before the column existed keeps its MAC, and setting or clearing the column
 * without the key shows. An identity's OIDC trust is one.
 */
export const optionalProtectedColumns: Partial<Record<ProtectedTable, readonly string[]>> = {
  identities: ['oidc_trust'],
}

/** The columns to select for a row's MAC (the covered ones, then the optional ones). */
function macColumns(table: ProtectedTable): readonly string[] {
  return [...protectedColumns[table], ...(optionalProtectedColumns[table] ?? [])]
}

/** A row whose MAC is missing or wrong. */
export interface RowMacFailure {
  table: ProtectedTable
  id: string
}

/** The MAC (hex) of one row of `table`: the table name and the covered columns, in order, as JSON. */
export function rowMac(key: Buffer, table: ProtectedTable, row: SqlRow): string {
  const covered = protectedColumns[table].map((column) => normalise(row[column]))
  const optional = (optionalProtectedColumns[table] ?? [])
    .filter((column) => normalise(row[column]) !== null)
    .map((column) => [column, normalise(row[column])])
  return hmacSha256(key)
    .update(JSON.stringify(['vault-row-mac-v1', table, ...covered, ...optional]))
    .digest('hex')
}

/** Whether a row's stored `row_mac` matches its content (constant-time). */
export function rowMacMatches(key: Buffer, table: ProtectedTable, row: SqlRow): boolean {
  const stored = typeof row.row_mac === 'string' ? Buffer.from(row.row_mac, 'hex') : Buffer.alloc(0)
  const actual = Buffer.from(rowMac(key, table, row), 'hex')
  return stored.length === actual.length && timingSafeEqual(stored, actual)
}

/** Recomputes and stores the MAC of the row `id` of `table` (call after every write to a covered column). */
export async function sealRow(
  tx: SqlExecutor,
  key: Buffer,
  table: ProtectedTable,
  id: string,
): Promise<void> {
  const [row] = await tx.all(`SELECT ${macColumns(table).join(', ')} FROM ${table} WHERE id = ?`, [id])
  if (row) await tx.run(`UPDATE ${table} SET row_mac = ? WHERE id = ?`, [rowMac(key, table, row), id])
}

/** Seals every row of the given protected tables (the schema upgrade that introduces row MACs). */
export async function sealAllRows(
  tx: SqlExecutor,
  key: Buffer,
  tables = Object.keys(protectedColumns) as ProtectedTable[],
): Promise<void> {
  for (const table of tables) {
    // every column: a schema upgrade seals rows before later migrations add the optional columns
    const rows = await tx.all(`SELECT * FROM ${table}`)
    for (const row of rows) {
      await tx.run(`UPDATE ${table} SET row_mac = ? WHERE id = ?`, [rowMac(key, table, row), String(row.id)])
    }
  }
}

/** Every protected row whose MAC is missing or does not match, in table order (empty when all hold). */
export async function findTamperedRows(tx: SqlExecutor, key: Buffer): Promise<RowMacFailure[]> {
  const failures: RowMacFailure[] = []
  for (const table of Object.keys(protectedColumns) as ProtectedTable[]) {
    const pageSize = 1000
    let after = ''
    for (;;) {
      const rows = await tx.all(
        `SELECT ${macColumns(table).join(', ')}, row_mac FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`,
        [after, pageSize],
      )
      paceRows(rows.length)
      for (const row of rows)
        if (!rowMacMatches(key, table, row)) failures.push({ table, id: String(row.id) })
      if (rows.length < pageSize) break
      after = String(rows.at(-1)!.id)
    }
  }
  return failures
}

/** Engines return integers as numbers or bigints and text as strings; the MAC sees one form. */
function normalise(value: unknown): string | number | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'number') return value
  return String(value)
}
