/**
 * What the engine-specific restore steps share: the hooks the orchestration gives them (step lines,
 * loading the archive, the checks of the restored data) and what they report back.
 */
import type { SqlDriver, SqlExecutor } from '../server/store/index.js'
import type { LiveReader } from './live-state.js'

export interface RestoreHooks {
  /** One line per step, printed as the restore goes. */
  step(message: string): void
  /** Reads the live database before anything is replaced (under the restore's lock); throws to refuse. */
  inspectLive(live: LiveReader): Promise<void>
  /** Streams the archive's rows into the new database through `tx` (a transaction the engine owns). */
  load(tx: SqlExecutor): Promise<void>
  /** Checks the restored data through a driver on the new database; throws to abort before the swap. */
  verify(store: SqlDriver): Promise<void>
}

export interface RestoreOutcome {
  /** Where the previous SQLite database was kept (a hard link), or null. */
  previous: string | null
}
