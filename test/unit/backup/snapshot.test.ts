/**
 * The read-only snapshot (src/backup/snapshot.ts) of a real vault's SQLite file, filled over HTTP while
 * the server runs: every table the store orders, the rows node:sqlite counts on its own connection, the
 * secrets the test wrote (values only as ciphertext), progress per table, and not a byte of the
 * database changed. Hostile targets (no file, a SQLite file that holds no vault, a file that is not
 * SQLite) fail with NotFoundError or an error that names no value.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { takeSnapshot } from '../../../src/backup/snapshot.js'
import { NotFoundError } from '../../../src/errors.js'
import { tablesInOrder } from '../../../src/server/store/index.js'
import { startSeededVault, type SeededVault } from '../../helpers/seeded-vault.js'

const canary = 'CANARY-snapshot-4b2e'

describe('takeSnapshot (SQLite)', () => {
  let vault: SeededVault
  let scratch: string
  const dbPath = () => vault.server.dbUrl.replace(/^sqlite:\/\//, '')

  beforeAll(async () => {
    vault = await startSeededVault({ SNAP_A: canary, SNAP_B: 'b-value' })
    scratch = mkdtempSync(join(tmpdir(), 'snapshot-'))
  }, 60_000)
  afterAll(async () => {
    await vault?.stop()
    rmSync(scratch, { recursive: true, force: true })
  })

  const digest = (file: string) =>
    existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null

  it('reads every table with the rows node:sqlite counts, the secrets written, and changes no byte', async () => {
    const files = [dbPath(), `${dbPath()}-wal`]
    const before = files.map(digest)
    const progress: [string, number][] = []
    const snapshot = await takeSnapshot(
      vault.server.dbUrl,
      (table, rows) => void progress.push([table, rows]),
    )
    expect(files.map(digest)).toEqual(before)

    expect(snapshot.engine).toBe('sqlite')
    expect(snapshot.schemaVersion).toBeGreaterThan(0)
    expect(Object.keys(snapshot.tables)).toEqual([...tablesInOrder])
    const own = new DatabaseSync(dbPath(), { readOnly: true })
    try {
      for (const table of tablesInOrder) {
        const { count } = own.prepare(`SELECT COUNT(*) AS count FROM ${table}`).get() as { count: number }
        expect([table, snapshot.tables[table]!.length]).toEqual([table, count])
      }
      const { version } = own.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as {
        version: number
      }
      expect(snapshot.schemaVersion).toBe(version)
    } finally {
      own.close()
    }
    expect(progress).toEqual(tablesInOrder.map((table) => [table, snapshot.tables[table]!.length]))
    const names = snapshot.tables.secrets!.map((row) => row.name)
    expect(names).toEqual(expect.arrayContaining(['SNAP_A', 'SNAP_B']))
    expect(JSON.stringify(snapshot.tables)).not.toContain(canary)
  })

  it('reads one consistent view: a row another connection commits mid-snapshot is not in it', async () => {
    const writer = new DatabaseSync(dbPath())
    writer.exec('PRAGMA busy_timeout = 5000')
    let committed = false
    try {
      const snapshot = await takeSnapshot(vault.server.dbUrl, (table) => {
        if (table !== 'meta' || committed) return
        writer.exec(
          `INSERT INTO projects (id, name, created_at) VALUES ('p-mid-snapshot', 'mid-snapshot', '2026-01-01')`,
        )
        committed = true
      })
      expect(committed).toBe(true)
      expect(snapshot.tables.projects!.map((row) => row.id)).not.toContain('p-mid-snapshot')
      const { count } = writer
        .prepare(`SELECT COUNT(*) AS count FROM projects WHERE id = 'p-mid-snapshot'`)
        .get() as {
        count: number
      }
      expect(count).toBe(1)
    } finally {
      writer.exec(`DELETE FROM projects WHERE id = 'p-mid-snapshot'`)
      writer.close()
    }
  })

  it('refuses a file that does not exist, without creating it', async () => {
    const missing = join(scratch, 'missing.db')
    await expect(takeSnapshot(`sqlite://${missing}`)).rejects.toBeInstanceOf(NotFoundError)
    expect(existsSync(missing)).toBe(false)
  })

  it('refuses a SQLite file that holds no vault, or an empty schema_migrations', async () => {
    const other = join(scratch, 'other.db')
    const db = new DatabaseSync(other)
    db.exec('CREATE TABLE notes (text TEXT)')
    db.close()
    const error = await takeSnapshot(`sqlite://${other}`).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as Error).message).toMatch(/no vault data/)

    const empty = join(scratch, 'empty-migrations.db')
    const db2 = new DatabaseSync(empty)
    db2.exec('CREATE TABLE schema_migrations (version INTEGER)')
    db2.close()
    await expect(takeSnapshot(`sqlite://${empty}`)).rejects.toBeInstanceOf(NotFoundError)
  })

  it('fails on a file that is not SQLite, leaving it unchanged', async () => {
    const junk = join(scratch, 'junk.db')
    writeFileSync(junk, `not a database ${canary}\n`.repeat(200))
    const before = digest(junk)
    const error = await takeSnapshot(`sqlite://${junk}`).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).not.toContain(canary)
    expect(digest(junk)).toBe(before)
  })
})
