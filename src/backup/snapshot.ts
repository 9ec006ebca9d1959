/**
 * A consistent, read-only snapshot of every table while the server keeps running: on SQLite one read
 * transaction (WAL gives it a fixed view while writers continue), on PostgreSQL one REPEATABLE READ,
 * READ ONLY transaction. Nothing is written, nothing is locked against the server's writes.
 */
import { existsSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import pg from 'pg'
import { NotFoundError, UnreachableError } from '../errors.js'
import { tablesInOrder, type SqlRow } from '../server/store/index.js'
import { parseDbUrl } from './db-url.js'
import type { TableSnapshot } from './manifest.js'

/** Called after each table is read, for progress on large databases. */
export type SnapshotProgress = (table: string, rows: number) => void

/** Reads every table of the database at `dbUrl` in one consistent read-only transaction. */
export async function takeSnapshot(
  dbUrl: string,
  progress: SnapshotProgress = () => undefined,
): Promise<TableSnapshot> {
  const target = parseDbUrl(dbUrl)
  if (target.engine === 'sqlite') return snapshotSqlite(target.path, progress)
  return snapshotPostgres(target.url, progress)
}

function snapshotSqlite(path: string, progress: SnapshotProgress): TableSnapshot {
  if (!existsSync(path)) {
    throw new NotFoundError(`the database ${path} does not exist`, { hint: 'check DB_URL (or --db-url)' })
  }
  const db = new DatabaseSync(path)
  try {
    db.exec('PRAGMA busy_timeout = 10000')
    db.exec('BEGIN')
    const version = readSchemaVersion(() =>
      db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get(),
    )
    const tables: Record<string, SqlRow[]> = {}
    for (const table of tablesInOrder) {
      tables[table] = db.prepare(`SELECT * FROM ${table}`).all() as SqlRow[]
      progress(table, tables[table].length)
    }
    db.exec('COMMIT')
    return { schemaVersion: version, engine: 'sqlite', tables }
  } finally {
    db.close()
  }
}

async function snapshotPostgres(url: string, progress: SnapshotProgress): Promise<TableSnapshot> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch (error) {
    throw new UnreachableError(`cannot connect to the PostgreSQL database: ${(error as Error).message}`, {
      cause: error,
      hint: 'check DB_URL (or --db-url) and that the database is running',
    })
  }
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    const result = await client
      .query<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations')
      .catch(() => null)
    const version = readSchemaVersion(() => result?.rows[0])
    const tables: Record<string, SqlRow[]> = {}
    for (const table of tablesInOrder) {
      tables[table] = (await client.query<SqlRow>(`SELECT * FROM ${table}`)).rows
      progress(table, tables[table].length)
    }
    await client.query('COMMIT')
    return { schemaVersion: version, engine: 'postgres', tables }
  } finally {
    await client.end().catch(() => undefined)
  }
}

function readSchemaVersion(read: () => unknown): number {
  let version: number
  try {
    version = Number((read() as { version?: unknown } | undefined)?.version ?? 0)
  } catch {
    version = 0
  }
  if (!version) {
    throw new NotFoundError('the database holds no vault data (no schema version)', {
      hint: 'check DB_URL (or --db-url); initialise a vault with vault server init',
    })
  }
  return version
}
