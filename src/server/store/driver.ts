/**
 * The engine-neutral SQL driver that both storage adapters implement. Queries are written once with
 * `?` placeholders, TEXT/INTEGER/BIGINT columns and ISO-8601 text timestamps, so one schema and one
 * set of statements serve SQLite and PostgreSQL, and every table exports as plain JSON rows.
 */

import { VaultError } from '../../errors.js'
import type { AuditEvent } from '../audit/audit.js'

export type SqlValue = string | number | null
export type SqlRow = Record<string, SqlValue>

/** Statements inside one transaction. `lockRow` selects with a row lock (FOR UPDATE on PostgreSQL). */
export interface SqlExecutor {
  /** Rows of a SELECT (or of a statement with RETURNING). */
  all<T extends SqlRow = SqlRow>(sql: string, params?: SqlValue[]): Promise<T[]>
  /** Rows of a SELECT as arrays in column order (cheaper than `all` for many rows). */
  values(sql: string, params?: SqlValue[]): Promise<SqlValue[][]>
  /** Runs a statement and returns the number of changed rows. */
  run(sql: string, params?: SqlValue[]): Promise<number>
  /** Like `all`, holding a write lock on the selected rows until the transaction ends. */
  lockRows<T extends SqlRow = SqlRow>(sql: string, params?: SqlValue[]): Promise<T[]>
  /**
   * Present on an engine where each statement costs a round trip (PostgreSQL): runs writes to
   * different tables as ONE statement (data-modifying WITH clauses), in order. Without it, run each.
   */
  runTogether?(statements: { sql: string; params: SqlValue[] }[]): Promise<void>
  /**
   * Present on an engine that group-commits writers in turns (PostgreSQL): runs one statement that
   * changes rows only when its WHERE holds, as the transaction's first change, without the savepoint
   * that guards a writer's turn (one round trip less in the serialised turn); returns the number of
   * rows it changed. After it changed rows, a failure of this transaction (or of a later statement
   * of it) cannot be rolled back alone: its whole batch fails, and the other transactions of the
   * batch get BatchAbortedError (nothing of them was kept; the driver runs them again).
   */
  runIf?(sql: string, params: SqlValue[]): Promise<number>
  /**
   * Present on an engine that group-commits the audit chain (PostgreSQL): takes a completed audit
   * event, which is hashed, chained and committed with the events of concurrent transactions, in
   * the same commit as this transaction's changes, before the transaction's promise resolves.
   */
  deferAudit?: (key: Buffer, event: Required<AuditEvent>) => void
}

/** The database generations (PostgreSQL): see pg-generation.ts. */
export interface Generation {
  auth: string
  content: string
}

/**
 * The generation a transaction's work took cached rows from, not yet checked against the database:
 * the counters of the families it used so far (none: it used nothing cached), and how to read the
 * current generation (a read that starts after the call).
 */
export interface AssumedGeneration {
  relied(): Partial<Generation>
  current(): Promise<Generation>
}

/**
 * The transaction relied on cached rows of a generation that has moved on: nothing of it was kept.
 * Carries the current generation when it was read. The server retries the request with rows read
 * afresh (authorize.ts); it reaches nobody else.
 */
export class StaleGenerationError extends VaultError {
  override name = 'StaleGenerationError'
  override readonly code: string = 'ERR_STALE_GENERATION'

  constructor(readonly current?: Generation) {
    super('the cached rows this transaction used are out of date; nothing of it was kept')
  }
}

/**
 * Another transaction of the same group-committed batch failed after changing rows without a
 * savepoint (SqlExecutor.runIf): the batch was rolled back and nothing of this transaction was kept.
 * The driver runs such a transaction's work once more; should that fail the same way, it is a
 * StaleGenerationError without a generation, so that the server runs the request again with rows
 * read afresh (authorize.ts).
 */
export class BatchAbortedError extends StaleGenerationError {
  override name = 'BatchAbortedError'
  override readonly code: string = 'ERR_BATCH_ABORTED'

  constructor() {
    super()
    this.message = 'another request committed with this one failed; nothing of this one was kept'
  }
}

export interface SqlDriver {
  readonly engine: 'sqlite' | 'postgres'
  /**
   * Runs `work` in one durable write transaction; committed when the promise resolves. With `assumes`
   * (PostgreSQL), the transaction keeps nothing unless that generation is still the database's when
   * it commits (or, for one that writes, when it starts writing); else StaleGenerationError.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: { assumes?: AssumedGeneration }): Promise<T>
  /**
   * Runs `work` in a transaction holding an engine-wide exclusive lock named `name` (advisory lock on
   * PostgreSQL), for migrations and one-time initialisation shared by several processes.
   */
  exclusive<T>(name: string, work: (tx: SqlExecutor) => Promise<T>): Promise<T>
  /**
   * Present on an engine whose processes cache reads (PostgreSQL): the current generations, read in a
   * statement of its own (see pg-generation.ts).
   */
  readGeneration?: () => Promise<Generation>
  close(): Promise<void>
}
