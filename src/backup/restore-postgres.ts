/**
 * Restore into PostgreSQL in one transaction: the live tables are locked against writes, cleared,
 * loaded from the archive, read back and checked (content, trial decryption) inside the same
 * transaction, which commits only when every check passed. A kill or a failed check rolls back, so
 * the previous data stays exactly as it was; readers keep seeing it until the commit.
 */
import { UnreachableError } from '../errors.js'
import { tablesInOrder, type SqlDriver } from '../server/store/index.js'
import { openStore } from '../server/migrations.js'
import { driverOverTransaction } from './data-checks.js'
import { clearTables } from './insert-rows.js'
import type { RestoreHooks, RestoreOutcome } from './restore-types.js'

/** Restores an archive (`hooks.load`) into the PostgreSQL database at `url`, replacing its content atomically. */
export async function restoreIntoPostgres(url: string, hooks: RestoreHooks): Promise<RestoreOutcome> {
  let store: SqlDriver
  try {
    store = await openStore(url)
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('ERR_')) throw error
    throw new UnreachableError(`cannot open the PostgreSQL database: ${(error as Error).message}`, {
      cause: error,
      hint: 'check DB_URL (or --db-url) and that the database is running and ready',
    })
  }
  try {
    await store.transaction(async (tx) => {
      hooks.step('locking the live tables against writes')
      await tx.run(`LOCK TABLE ${tablesInOrder.join(', ')} IN EXCLUSIVE MODE`)
      await hooks.inspectLive(tx)
      hooks.step('replacing the data inside one transaction (nothing is visible until it commits)')
      await clearTables(tx)
      await hooks.load(tx)
      hooks.step('checking the restored data (content, decryption) before committing')
      await hooks.verify(driverOverTransaction(tx, 'postgres'))
      hooks.step('committing')
    })
  } finally {
    await store.close()
  }
  return { previous: null }
}
