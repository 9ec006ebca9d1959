import { DatabaseSync } from 'node:sqlite'
import { createServer } from 'node:net'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { storeFaultOf } from '../../../../src/server/store/faults.js'

/** The error node:sqlite throws for a write into a database that may not grow (PRAGMA max_page_count). */
function realSqliteFull(): unknown {
  const db = new DatabaseSync(':memory:')
  db.exec('CREATE TABLE t (v TEXT)')
  db.exec(`PRAGMA max_page_count = ${Number(db.prepare('PRAGMA page_count').get()!.page_count)}`)
  try {
    db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(64 * 1024))
  } catch (error) {
    return error
  } finally {
    db.close()
  }
  throw new Error('the insert did not fail')
}

/** The error pg gives for a port nothing listens on. */
async function realRefusal(password: string): Promise<{ error: unknown; port: number }> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as { port: number }).port
  await new Promise((resolve) => probe.close(resolve))
  const client = new pg.Client({ connectionString: `postgres://vault:${password}@127.0.0.1:${port}/vault` })
  const error = await client.connect().then(
    () => undefined,
    (failure: unknown) => failure,
  )
  return { error, port }
}

const sqlError = (errcode: number, errstr: string) =>
  Object.assign(new Error(errstr), { code: 'ERR_SQLITE_ERROR', errcode, errstr })
const pgError = (code: string, message: string) =>
  Object.assign(new Error(message), { code, severity: 'FATAL' })

describe('storeFaultOf', () => {
  it('names a real SQLITE_FULL from node:sqlite as storage_full', () => {
    expect(storeFaultOf(realSqliteFull(), 'sqlite')).toEqual({
      apiCode: 'storage_full',
      message: "the vault's database is out of disk space; nothing was written; retry later",
      retryAfterSeconds: 60,
      cause: 'SQLITE_FULL: database or disk is full',
    })
  })

  it('names a real refused connection to PostgreSQL by its address, never the password', async () => {
    const password = 'CANARY-pg-password-7f3a'
    const { error, port } = await realRefusal(password)
    const fault = storeFaultOf(error, 'postgres')
    expect(fault).toMatchObject({ apiCode: 'database_unavailable', retryAfterSeconds: 5 })
    expect(fault!.cause).toBe(`ECONNREFUSED connecting to PostgreSQL at 127.0.0.1:${port}`)
    expect(JSON.stringify(fault)).not.toContain(password)
  })

  it.each<[string, unknown, 'sqlite' | 'postgres', string | undefined, string | undefined]>([
    [
      'an extended I/O error',
      sqlError(778, 'disk I/O error'),
      'sqlite',
      'database_unavailable',
      'SQLITE_IOERR: disk I/O error',
    ],
    [
      'a lock held past the busy timeout',
      sqlError(5, 'database is locked'),
      'sqlite',
      'database_unavailable',
      'SQLITE_BUSY: database is locked',
    ],
    [
      'a read-only file',
      sqlError(8, 'attempt to write a readonly database'),
      'sqlite',
      'database_unavailable',
      'SQLITE_READONLY: attempt to write a readonly database',
    ],
    [
      'a constraint (the request, not the storage)',
      sqlError(19, 'constraint failed'),
      'sqlite',
      undefined,
      undefined,
    ],
    [
      'a server shut down',
      pgError('57P01', 'terminating connection due to administrator command'),
      'postgres',
      'database_unavailable',
      '57P01 admin_shutdown (PostgreSQL)',
    ],
    [
      'a full disk on PostgreSQL',
      pgError('53100', 'could not extend file "base/1/2": No space left'),
      'postgres',
      'storage_full',
      '53100 disk_full (PostgreSQL)',
    ],
    [
      'a standby after a failover',
      pgError('25006', 'cannot execute UPDATE in a read-only transaction'),
      'postgres',
      'database_unavailable',
      '25006 read_only_sql_transaction (PostgreSQL)',
    ],
    [
      'a connection that broke',
      new Error('Connection terminated unexpectedly'),
      'postgres',
      'database_unavailable',
      'PostgreSQL: Connection terminated unexpectedly',
    ],
    [
      'a unique violation quoting a value',
      pgError('23505', 'Key (name)=(CANARY-secret) already exists'),
      'postgres',
      undefined,
      undefined,
    ],
    [
      'a network code on SQLite (not the database)',
      Object.assign(new Error('x'), { code: 'ENOTFOUND' }),
      'sqlite',
      undefined,
      undefined,
    ],
    [
      'a SQLite code on PostgreSQL',
      sqlError(13, 'database or disk is full'),
      'postgres',
      undefined,
      undefined,
    ],
    [
      'a fault as the cause of another error',
      new Error('wrapped', { cause: pgError('57P03', 'the database system is starting up') }),
      'postgres',
      'database_unavailable',
      '57P03 cannot_connect_now (PostgreSQL)',
    ],
    ['a string', 'ECONNREFUSED', 'postgres', undefined, undefined],
    ['an object posing as a fault', { code: 'ECONNREFUSED', message: 'x' }, 'postgres', undefined, undefined],
    [
      'a __proto__ code',
      Object.assign(new Error('x'), { code: '__proto__' }),
      'postgres',
      undefined,
      undefined,
    ],
    [
      'a constructor code',
      Object.assign(new Error('x'), { code: 'constructor' }),
      'postgres',
      undefined,
      undefined,
    ],
    [
      'a toString errcode',
      Object.assign(new Error('x'), { errcode: 'toString' }),
      'sqlite',
      undefined,
      undefined,
    ],
  ])('maps %s', (_label, error, engine, apiCode, cause) => {
    const fault = storeFaultOf(error, engine)
    expect(fault?.apiCode).toBe(apiCode)
    expect(fault?.cause).toBe(cause)
    if (fault) expect(fault.cause).not.toContain('CANARY')
  })
})
