/**
 * Streaming an authenticated archive into a database through a transaction the caller owns (a new
 * SQLite file, or the uncommitted PostgreSQL transaction), a chunk at a time, and reading the result
 * back page by page to prove the database holds exactly the archive's rows. Memory stays bounded by a
 * chunk and a page, whatever the archive's size.
 */
import { IntegrityError } from '../errors.js'
import { paceRows } from '../process/gc-pacer.js'
import { tablesInOrder, type SqlExecutor, type SqlRow, type SqlValue } from '../server/store/index.js'
import { readArchiveRows, type AuthenticatedArchive } from './archive-read.js'
import { insertRows, type LoadProgress } from './insert-rows.js'
import { TableDigest } from './row-digest.js'

/** What was loaded, per table, for `checkSameContent`. */
export type LoadedDigests = Map<string, TableDigest>

const pageSize = 500
/** The primary key each table is paged by when read back (keyset pagination; a total order). */
const pageOrder: Record<string, string> = {
  meta: 'key',
  root_keys: 'version',
  admins: 'id',
  projects: 'id',
  data_keys: 'project_id, version',
  environments: 'project_id, slug',
  identities: 'id',
  access_tokens: 'jti',
  secrets: 'id',
  secret_versions: 'secret_id, version',
  audit_events: 'seq',
  audit_head: 'id',
  webhooks: 'id',
  webhook_outbox: 'id',
}

/** Inserts every row of `archive` through `tx`; returns the digests of what was inserted. */
export async function loadArchive(
  tx: SqlExecutor,
  archive: AuthenticatedArchive,
  kek: Buffer,
  progress: LoadProgress = () => undefined,
): Promise<LoadedDigests> {
  const digests: LoadedDigests = new Map()
  let current: string | undefined
  await readArchiveRows(archive, kek, async (table, rows) => {
    if (!(tablesInOrder as readonly string[]).includes(table)) {
      throw new IntegrityError(`the archive holds an unknown table ${table}; nothing was changed`)
    }
    if (current !== undefined && current !== table) progress(current, digests.get(current)!.rows)
    current = table
    let digest = digests.get(table)
    if (!digest) digests.set(table, (digest = new TableDigest()))
    for (const row of rows) digest.add(row)
    await insertRows(tx, table, rows)
  })
  if (current !== undefined) progress(current, digests.get(current)!.rows)
  return digests
}

/** Reads every table back in pages (keyset, by primary key) and compares it with what was loaded. */
export async function checkSameContent(tx: SqlExecutor, loaded: LoadedDigests): Promise<void> {
  for (const table of tablesInOrder) {
    const actual = new TableDigest()
    const key = pageOrder[table]
    if (key) {
      const columns = key.split(', ')
      let after: SqlValue[] | undefined
      for (;;) {
        const rows: SqlRow[] = await tx.all(
          `SELECT * FROM ${table}${after ? ` WHERE (${key}) > (${columns.map(() => '?').join(', ')})` : ''}
            ORDER BY ${key} LIMIT ?`,
          [...(after ?? []), pageSize],
        )
        for (const row of rows) actual.add(row)
        paceRows(rows.length)
        if (rows.length < pageSize) break
        const last = rows.at(-1)!
        after = columns.map((column) => last[column] ?? null)
      }
    } else {
      for (const row of await tx.all(`SELECT * FROM ${table}`)) actual.add(row)
    }
    const expected = loaded.get(table) ?? new TableDigest()
    if (!actual.equals(expected)) {
      throw new IntegrityError(
        `the restored table ${table} differs from the archive (${actual.rows} rows, expected ${expected.rows}); nothing was changed`,
        { hint: 'check the target database and disk, then restore again' },
      )
    }
  }
}
