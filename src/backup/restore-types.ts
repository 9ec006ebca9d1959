/**
 * What the engine-specific restore steps share: the hooks the orchestration gives them (step lines,
 * progress, the content check of the restored data) and what they report back.
 */
import type { SqlDriver } from '../server/store/index.js'

export interface RestoreHooks {
  /** One line per step, printed as the restore goes. */
  step(message: string): void
  /** Progress of loading one table. */
  progress?(table: string, rows: number): void
  /** Checks the restored data through a driver on the new database; throws to abort before the swap. */
  verify(store: SqlDriver): Promise<void>
}

export interface RestoreOutcome {
  /** Where the previous SQLite database was kept (a hard link), or null. */
  previous: string | null
}
