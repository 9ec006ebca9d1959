/**
 * Restore into SQLite by file swap: the archive is imported into `<db>.restore-<random>` next to the
 * live file, checked there (integrity_check, content, trial decryption), and only then renamed over
 * the live file. The live database is held with an exclusive lock while this runs, so a running
 * server is detected (and refused) and none can start until the swap. Order of the swap, so that a SIGKILL at any
 * point leaves an openable database: checkpoint the live WAL into the main file, hard-link the
 * live file to `<db>.pre-restore-<time>`, move its (now empty) -wal aside and drop its -shm, fsync the
 * new file, rename it over the live name, fsync the directory. Temporaries left by a killed restore
 * are removed by the next one (under the lock).
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { copyFile, link, readdir, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { ConflictError, IntegrityError } from '../errors.js'
import { openStore } from '../server/migrations.js'
import { sqliteUrl } from './db-url.js'
import { fileWriteError } from './file-errors.js'
import { syncDirectory, syncFile } from '../fs/atomic-file.js'
import type { SqlRow, SqlValue } from '../server/store/index.js'
import type { LiveReader } from './live-state.js'
import type { RestoreHooks, RestoreOutcome } from './restore-types.js'

/** Restores an archive (`hooks.load`) into the SQLite file at `path`, replacing it only after every check passed. */
export async function restoreIntoSqlite(path: string, hooks: RestoreHooks): Promise<RestoreOutcome> {
  const lock = existsSync(path) ? lockLiveDatabase(path) : null
  const temporary = `${path}.restore-${randomBytes(6).toString('hex')}`
  if (lock) await removeStaleTemporaries(path)
  try {
    if (lock) await hooks.inspectLive(lock.reader)
    hooks.step(`importing into the temporary database ${temporary}`)
    try {
      const store = await openStore(sqliteUrl(temporary))
      try {
        await store.transaction((tx) => hooks.load(tx))
        hooks.step('checking the temporary database (content, decryption, audit chain, integrity)')
        await hooks.verify(store)
      } finally {
        await store.close()
      }
    } catch (error) {
      throw fileWriteError(error, temporary)
    }
    checkIntegrity(temporary)
    lock?.close()
    hooks.step(`swapping the restored database into place (${path})`)
    const previous = existsSync(path) ? await setAsidePrevious(path) : null
    await syncFile(temporary)
    await rename(temporary, path)
    await syncDirectory(dirname(path))
    return { previous }
  } catch (error) {
    lock?.close()
    await removeDatabaseFiles(temporary)
    throw error
  }
}

interface LiveLock {
  /** Reads the live file through the connection that holds its lock. */
  reader: LiveReader
  close(): void
}

function lockLiveDatabase(path: string): LiveLock {
  const db = new DatabaseSync(path)
  try {
    db.exec('PRAGMA busy_timeout = 0')
    db.exec('PRAGMA locking_mode = EXCLUSIVE')
    db.exec('BEGIN EXCLUSIVE')
    db.exec('COMMIT')
    db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get()
  } catch (error) {
    db.close()
    if (/locked|busy/i.test((error as Error).message)) {
      throw new ConflictError(
        `the database ${path} is in use (is a vault server running on it?); nothing was changed`,
        {
          cause: error,
          hint: 'stop the vault server first (with a compose stack: vault restore --compose FILE does it)',
        },
      )
    }
    throw new IntegrityError(`the live database ${path} cannot be opened: ${(error as Error).message}`, {
      cause: error,
      hint: 'move the damaged file aside, then restore into an empty location',
    })
  }
  let open = true
  return {
    reader: {
      all: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
        db.prepare(sql).all(...params) as unknown as T[],
    },
    close: () => {
      if (open) db.close()
      open = false
    },
  }
}

function checkIntegrity(path: string): void {
  const db = new DatabaseSync(path)
  try {
    const rows = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]
    const problems = db.prepare('PRAGMA foreign_key_check').all()
    if (rows.length !== 1 || rows[0]!.integrity_check !== 'ok' || problems.length > 0) {
      throw new IntegrityError('the restored database failed its integrity check; nothing was changed', {
        hint: 'check the disk holding the database, then restore again',
      })
    }
  } finally {
    db.close()
  }
}

async function setAsidePrevious(path: string): Promise<string> {
  const previous = `${path}.pre-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`
  await link(path, previous).catch(() => copyFile(path, previous))
  if (existsSync(`${path}-wal`)) await rename(`${path}-wal`, `${previous}-wal`)
  await rm(`${path}-shm`, { force: true })
  return previous
}

async function removeStaleTemporaries(path: string): Promise<void> {
  const prefix = `${basename(path)}.restore-`
  for (const name of await readdir(dirname(path))) {
    if (name.startsWith(prefix)) await rm(join(dirname(path), name), { force: true })
  }
}

async function removeDatabaseFiles(path: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${path}${suffix}`, { force: true })
}
