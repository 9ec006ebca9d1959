/**
 * The --watch mode for any command but a compose `up`: on a change, the secrets are loaded again
 * first (a failed load leaves the running child alone), then the child gets SIGTERM, is waited for,
 * and starts again with the fresh environment. The child ending on its own ends the run with its code.
 */
import type { PreparedRun } from './run.js'
import type { WatchMode, WatchOptions } from './watch.js'

/** The restart-the-child watch mode. */
export function restartWatcher(options: WatchOptions & { stopping: AbortSignal }): WatchMode {
  let running: AbortController | undefined
  let next: PreparedRun | undefined

  return {
    async run(first, command, args) {
      let run = first
      for (;;) {
        const restart = new AbortController()
        running = restart
        const code = await run.start(command, args, restart.signal)
        running = undefined
        if (options.stopping.aborted || !restart.signal.aborted || !next) return code
        run = next
        next = undefined
        options.note(`restarting ${command} with the new values`)
      }
    },
    async onChanges(names) {
      if (options.stopping.aborted) return
      try {
        next = await options.prepare()
      } catch (error) {
        options.note(
          `Warning: ${names.join(', ')} changed but the secrets could not be loaded (${(error as Error).message}); ` +
            'the command keeps running with the old values',
        )
        return
      }
      if (options.stopping.aborted) return
      options.note(
        `${names.join(', ')} changed: stopping ${running ? 'the command' : 'nothing'} to restart it`,
      )
      running?.abort()
    },
  }
}
