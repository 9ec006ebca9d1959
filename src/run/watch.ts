/**
 * `vault run --watch`: runs the command, follows the environment's change feed, and on a (debounced)
 * change either recreates exactly the compose services that use the changed secrets (when the
 * command is a compose `up`, through rotate's restart machinery) or restarts the child with a fresh
 * environment (signal, wait, start again). SIGINT/SIGTERM stop the feed, let a restart in progress
 * finish, and end the run with the child.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { SecretChange } from '../client/events.js'
import type { ConnectionSettings } from '../client/settings.js'
import type { PreparedRun } from '../process/vault-run.js'
import { createChangeBatcher } from './change-batch.js'
import { parseComposeUp } from './compose-command.js'

export interface WatchOptions {
  settings: ConnectionSettings
  environment?: string
  /** Loads the secrets again and prepares a run with them (the same options as the first). */
  prepare: () => Promise<PreparedRun>
  /** Where the compose files are (vault run's --stack-dir), and vault run's own -f files. */
  composeDir?: string
  composeFiles?: string[]
  note: (line: string) => void
  /** How long to wait for the feed to connect before loading the secrets (default 5000 ms). */
  connectWaitMs?: number
  /** Debounce: quiet period and longest wait, in milliseconds (default 1000 and 5000). */
  timing?: { quietMs: number; maxWaitMs: number }
}

const stopSignals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Runs `command args` under --watch and resolves with the exit code the CLI ends with. The feed is
 * connected before the secrets are loaded, so no change between the load and the subscription is
 * missed (when it cannot connect within `connectWaitMs`, the run starts anyway and says so).
 */
export async function runWatching(command: string, args: string[], options: WatchOptions): Promise<number> {
  const stopping = new AbortController()
  const onSignal = () => stopping.abort()
  for (const signal of stopSignals) process.on(signal, onSignal)
  const compose = parseComposeUp(command, args)
  const mode = compose
    ? await import('./watch-compose.js').then(({ composeWatcher }) =>
        composeWatcher(compose, { ...options, stopping: stopping.signal }),
      )
    : await import('./watch-restart.js').then(({ restartWatcher }) =>
        restartWatcher({ ...options, stopping: stopping.signal }),
      )
  const batcher = createChangeBatcher(mode.onChanges, options.timing ?? { quietMs: 1000, maxWaitMs: 5000 })
  const { followChanges } = await import('../client/events.js')
  let connected: () => void = () => undefined
  const ready = new Promise<void>((resolve) => (connected = resolve))
  const following = followChanges(options.settings, {
    environment: options.environment,
    signal: stopping.signal,
    onChange: (change: SecretChange) => batcher.add(change.name),
    onReady: () => connected(),
    note: options.note,
  })
  const feedDone = following.catch((error: unknown) =>
    options.note(`Warning: ${(error as Error).message}; the command keeps running without --watch`),
  )
  try {
    const waited = await Promise.race([
      ready.then(() => true),
      feedDone.then(() => false),
      sleep(options.connectWaitMs ?? 5000, false, { ref: false }),
    ])
    if (!waited)
      options.note(
        'Warning: the change feed is not connected yet; changes made before it connects are missed',
      )
    const first = await options.prepare()
    return await mode.run(first, command, args)
  } finally {
    stopping.abort()
    await batcher.close()
    await feedDone
    for (const signal of stopSignals) process.off(signal, onSignal)
  }
}

/** What a watch mode provides: its run loop and its handling of a batch of changed names. */
export interface WatchMode {
  run(first: PreparedRun, command: string, args: string[]): Promise<number>
  onChanges(names: string[]): Promise<void>
}
