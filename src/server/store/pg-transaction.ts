/**
 * One transaction of the PostgreSQL driver. Its reads run on a pooled connection of their own, one
 * statement at a time (READ COMMITTED gives each statement a fresh snapshot either way), so readers
 * run side by side. Its first write (or row lock) takes a turn in the filling group-commit batch and
 * runs every later statement there. Audit events wait in memory and are chained at the batch commit;
 * the transaction's promise resolves only after that commit (see pg-batch.ts).
 */
import type pg from 'pg'
import type { PendingEvent } from '../audit-batch.js'
import type { SqlExecutor, SqlRow, SqlValue } from './driver.js'
import type { GroupCommit, Turn } from './pg-batch.js'
import { statement } from './pg-query.js'

export class PgTransaction {
  private reader: Promise<pg.PoolClient> | undefined
  private entering: Promise<Turn> | undefined
  private turn: Turn | undefined
  private readonly events: PendingEvent[] = []

  constructor(
    private readonly pool: pg.Pool,
    private readonly batches: GroupCommit,
  ) {}

  readonly executor: SqlExecutor = {
    all: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      (await this.query<T>(sql, params, await this.connection())).rows,
    values: async (sql, params = []) =>
      (await this.query<SqlValue[]>(sql, params, await this.connection(), 'array')).rows,
    run: async (sql, params = []) => (await this.query(sql, params, await this.writer())).rowCount ?? 0,
    lockRows: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      (await this.query<T>(`${sql} FOR UPDATE`, params, await this.writer())).rows,
    deferAudit: (key, event) => void this.events.push({ key, event }),
  }

  /** Ends a transaction whose work succeeded: resolves once its changes and events are committed. */
  async commit(): Promise<void> {
    await this.releaseReader()
    if (this.entering) await this.entering
    if (this.turn) await this.turn.leave(this.events)
    else if (this.events.length > 0) await this.batches.append(this.events)
  }

  /** Ends a transaction whose work failed: nothing of it is kept. */
  async rollback(): Promise<void> {
    await this.releaseReader()
    const turn = this.entering ? await this.entering.catch(() => undefined) : undefined
    await turn?.abandon()
  }

  private query<R>(sql: string, params: SqlValue[], client: pg.ClientBase, rowMode?: 'array') {
    return client.query<R extends unknown[] ? R : never>(
      statement(sql, params, rowMode) as pg.QueryArrayConfig,
    ) as unknown as Promise<pg.QueryResult<R & pg.QueryResultRow>>
  }

  private async connection(): Promise<pg.ClientBase> {
    if (this.entering) return (await this.entering).client
    return (this.reader ??= this.pool.connect())
  }

  private async writer(): Promise<pg.ClientBase> {
    this.entering ??= this.releaseReader().then(() => this.batches.enter())
    this.turn = await this.entering
    return this.turn.client
  }

  private async releaseReader(): Promise<void> {
    const reader = this.reader
    this.reader = undefined
    if (reader) (await reader).release()
  }
}
