/**
 * PostgreSQL adapter (pg): a connection pool; transactions group-committed with their audit events
 * (pg-transaction.ts, pg-batch.ts); named prepared statements (pg-query.ts); exclusive work on its own
 * connection under a transaction-scoped advisory lock, appending its audit events itself.
 */
import pg from 'pg'
import { IntegrityError } from '../../errors.js'
import { BatchAbortedError, type AssumedGeneration, type SqlDriver, type SqlExecutor } from './driver.js'
import { GroupCommit } from './pg-batch.js'
import { readGenerationSql } from './pg-generation.js'
import { advisoryKey, clientExecutor, statement } from './pg-query.js'
import { PgTransaction } from './pg-transaction.js'

/** Connections per server process (measured: see docs/postgres.md). */
export const defaultPoolSize = 10

/**
 * How long a new connection may take before the request that needs it fails (503, database
 * unavailable). Without it a database host that drops packets holds every request until the
 * kernel gives up on the TCP connect (about two minutes on Linux).
 */
export const defaultConnectTimeoutMs = 10_000

export interface PostgresOptions {
  /** Connections per server process (default defaultPoolSize). */
  poolSize?: number
  /** Milliseconds a new connection may take (default defaultConnectTimeoutMs). */
  connectTimeoutMs?: number
}

/** Opens a pool on the PostgreSQL database at `url`. */
export function openPostgres(url: string, options: PostgresOptions = {}): SqlDriver {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? defaultPoolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? defaultConnectTimeoutMs,
  })
  pool.on('error', () => undefined)
  const batches = new GroupCommit(pool)

  /** Runs `work` once more when another transaction of its batch failed it (nothing of it was kept). */
  async function transaction<T>(
    work: (tx: SqlExecutor) => Promise<T>,
    options: { assumes?: AssumedGeneration } = {},
  ): Promise<T> {
    return attempt(work, options).catch((error: unknown) => {
      if (!(error instanceof BatchAbortedError)) throw error
      return attempt(work, options)
    })
  }

  async function attempt<T>(
    work: (tx: SqlExecutor) => Promise<T>,
    options: { assumes?: AssumedGeneration },
  ): Promise<T> {
    const tx = new PgTransaction(pool, batches, options.assumes)
    let result: T
    try {
      result = await work(tx.executor)
    } catch (error) {
      await tx.rollback()
      throw error
    }
    await tx.commit()
    return result
  }

  async function exclusive<T>(name: string, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      await client.query('SELECT pg_advisory_xact_lock($1)', [advisoryKey(name)])
      const result = await work(clientExecutor(client))
      await client.query('COMMIT')
      client.release()
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      client.release()
      throw error
    }
  }

  async function readGeneration(): Promise<{ auth: string; content: string }> {
    const result = await pool.query<{ auth: string; content: string }>(statement(readGenerationSql, []))
    const row = result.rows[0]
    if (!row) {
      throw new IntegrityError('the vault_generation row is missing (it was deleted outside the vault)', {
        hint: 'restart one vault server on this database: its start-up installs the row again',
      })
    }
    return row
  }

  return {
    engine: 'postgres',
    transaction,
    exclusive,
    readGeneration,
    close: async () => {
      await batches.idle()
      await pool.end()
    },
  }
}
