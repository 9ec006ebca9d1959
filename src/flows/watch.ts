/**
 * `vault run --watch`: runs the command under the shared --watch machinery (src/delivery/change-watch.ts)
 * and, on a (debounced) change, either recreates exactly the compose services that use the changed
 * secrets (when the command is a compose `up`, through rotate's restart machinery) or restarts the
 * child with a fresh environment (signal, wait, start again). SIGINT/SIGTERM stop the feed, let a
 * restart in progress finish, and end the run with the child.
 */
import type { ChangeWatchOptions } from '../delivery/change-watch.js'
import type { PreparedRun } from './run.js'
import { parseComposeUp } from '../process/compose-command.js'

export interface WatchOptions extends ChangeWatchOptions {
  /** Loads the secrets again and prepares a run with them (the same options as the first). */
  prepare: () => Promise<PreparedRun>
  /** Where the compose files are (vault run's --stack-dir), and vault run's own -f files. */
  composeDir?: string
  composeFiles?: string[]
  /** Secrets whose names control the host that may still reach compose (vault run's --allow-env). */
  allowEnv?: readonly string[]
}

/** Runs `command args` under --watch and resolves with the exit code the CLI ends with. */
export async function runWatching(command: string, args: string[], options: WatchOptions): Promise<number> {
  const { watchChanges } = await import('../delivery/change-watch.js')
  return watchChanges(options, async (stopping) => {
    const compose = parseComposeUp(command, args)
    const mode = compose
      ? await import('./watch-compose.js').then(({ composeWatcher }) =>
          composeWatcher(compose, { ...options, stopping }),
        )
      : await import('./watch-restart.js').then(({ restartWatcher }) =>
          restartWatcher({ ...options, stopping }),
        )
    return {
      run: async () => {
        const first = await options.prepare()
        // stopped while the secrets were loading: neither compose nor the child is started
        return stopping.aborted ? 0 : mode.run(first, command, args)
      },
      stopped: () => 0,
      onChanges: (names) => mode.onChanges(names),
    }
  })
}

/** What a watch mode of `vault run` provides: its run loop and its handling of a batch of changed names. */
export interface WatchMode {
  run(first: PreparedRun, command: string, args: string[]): Promise<number>
  onChanges(names: string[]): Promise<void>
}
