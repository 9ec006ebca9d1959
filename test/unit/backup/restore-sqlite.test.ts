/**
 * Restore into SQLite by file swap (src/backup/restore-sqlite.ts) on real files in a temporary directory,
 * read back with node:sqlite and compared by SHA-256: a restore creates or replaces the file and keeps
 * the previous one byte for byte; a check that fails, a database in use (another connection holds
 * an exclusive lock) or a damaged live file change nothing, and no temporary is left behind.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { restoreIntoSqlite } from '../../../src/backup/restore-sqlite.js'
import type { RestoreHooks } from '../../../src/backup/restore-types.js'
import { ConflictError, IntegrityError } from '../../../src/errors.js'

let dir: string
let path: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'restore-sqlite-'))
  path = join(dir, 'vault.db')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')
const leftovers = () => readdirSync(dir).filter((name) => name.includes('.restore-'))

/** Hooks whose load writes `marker` into meta; `verify` may throw. */
function hooks(marker: string, verify: RestoreHooks['verify'] = async () => undefined) {
  const steps: string[] = []
  const seenLive: unknown[] = []
  const given: RestoreHooks = {
    step: (line) => void steps.push(line),
    inspectLive: async (live) =>
      void seenLive.push(...(await live.all(`SELECT value FROM meta WHERE key = 'marker'`))),
    load: async (tx) => void (await tx.run(`INSERT INTO meta (key, value) VALUES ('marker', ?)`, [marker])),
    verify,
  }
  return { given, steps, seenLive }
}

function markerOf(file: string): unknown {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return (db.prepare(`SELECT value FROM meta WHERE key = 'marker'`).get() as { value: unknown } | undefined)
      ?.value
  } finally {
    db.close()
  }
}

describe('restoreIntoSqlite', () => {
  it('creates the database where there was none, with what load wrote', async () => {
    const run = hooks('first')
    const outcome = await restoreIntoSqlite(path, run.given)
    expect(outcome.previous).toBeNull()
    expect(markerOf(path)).toBe('first')
    expect(run.seenLive).toEqual([])
    expect(leftovers()).toEqual([])
  })

  it('replaces a database, reading the live one first and keeping it byte for byte', async () => {
    await restoreIntoSqlite(path, hooks('old').given)
    const before = sha(path)
    const run = hooks('new')
    const outcome = await restoreIntoSqlite(path, run.given)
    expect(run.seenLive).toEqual([{ value: 'old' }])
    expect(markerOf(path)).toBe('new')
    expect(outcome.previous).not.toBeNull()
    expect(sha(outcome.previous!)).toBe(before)
    expect(markerOf(outcome.previous!)).toBe('old')
    expect(leftovers()).toEqual([])
  })

  it('changes nothing when the check of the restored data fails', async () => {
    await restoreIntoSqlite(path, hooks('old').given)
    const before = sha(path)
    const refused = new IntegrityError('refused by the test')
    await expect(
      restoreIntoSqlite(
        path,
        hooks('new', async () => {
          throw refused
        }).given,
      ),
    ).rejects.toBe(refused)
    expect(sha(path)).toBe(before)
    expect(markerOf(path)).toBe('old')
    expect(leftovers()).toEqual([])
    expect(readdirSync(dir).filter((name) => name.includes('pre-restore'))).toEqual([])
  })

  it('refuses a database another connection holds, changing nothing', async () => {
    await restoreIntoSqlite(path, hooks('old').given)
    const before = sha(path)
    const server = new DatabaseSync(path)
    server.exec('BEGIN EXCLUSIVE')
    try {
      await expect(restoreIntoSqlite(path, hooks('new').given)).rejects.toBeInstanceOf(ConflictError)
    } finally {
      server.exec('ROLLBACK')
      server.close()
    }
    expect(sha(path)).toBe(before)
    expect(leftovers()).toEqual([])
  })

  it('refuses a live file that is not a database, changing nothing', async () => {
    writeFileSync(path, 'this is not SQLite '.repeat(300))
    const before = sha(path)
    await expect(restoreIntoSqlite(path, hooks('new').given)).rejects.toBeInstanceOf(IntegrityError)
    expect(sha(path)).toBe(before)
    expect(leftovers()).toEqual([])
  })

  it('holds the live database against writers while it reads it', async () => {
    await restoreIntoSqlite(path, hooks('old').given)
    const run = hooks('new')
    let writerRefused: unknown
    const inspect = run.given.inspectLive
    run.given.inspectLive = async (live) => {
      const writer = new DatabaseSync(path)
      try {
        writer.exec('PRAGMA busy_timeout = 0')
        writer.exec('BEGIN IMMEDIATE')
        writer.exec('ROLLBACK')
      } catch (error) {
        writerRefused = error
      } finally {
        writer.close()
      }
      await inspect(live)
    }
    await restoreIntoSqlite(path, run.given)
    expect(String(writerRefused)).toMatch(/locked|busy/i)
    expect(markerOf(path)).toBe('new')
  })

  it('refuses a restored file that fails SQLite’s foreign key check, changing nothing', async () => {
    await restoreIntoSqlite(path, hooks('old').given)
    const before = sha(path)
    const run = hooks('new', async () => {
      // damage between the checks and the swap: a version of a secret that does not exist
      const temporary = run.steps[0]!.replace('importing into the temporary database ', '')
      const db = new DatabaseSync(temporary)
      try {
        db.exec('PRAGMA foreign_keys = OFF')
        db.exec(
          `INSERT INTO secret_versions (secret_id, version, actor, created_at) VALUES ('no-such-secret', 1, 'test', '2026-01-01')`,
        )
      } finally {
        db.close()
      }
    })
    await expect(restoreIntoSqlite(path, run.given)).rejects.toBeInstanceOf(IntegrityError)
    expect(sha(path)).toBe(before)
    expect(leftovers()).toEqual([])
  })

  it('removes the temporaries a killed restore left', async () => {
    await restoreIntoSqlite(path, hooks('old').given)
    const stale = `${path}.restore-0123456789ab`
    writeFileSync(stale, 'half written')
    writeFileSync(join(dir, 'other.db.restore-keep'), 'another database’s')
    await restoreIntoSqlite(path, hooks('new').given)
    expect(existsSync(stale)).toBe(false)
    expect(existsSync(join(dir, 'other.db.restore-keep'))).toBe(true)
  })
})
