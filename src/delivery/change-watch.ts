/**
 * The --watch machinery that `vault run --watch` and `vault inject --watch` share: follow the
 * environment's change feed (src/client/events.ts: backoff, resume, re-login), debounce the changed
 * names into batches (change-batch.ts), hand each batch to the watcher, and stop cleanly on SIGINT,
 * SIGTERM or SIGHUP (no new batch starts; one in progress finishes).
 */
import type { SecretChange } from '../client/events.js'
import { defaultFollowTimings } from '../client/follow-timings.js'
import type { ConnectionSettings } from '../client/settings.js'
import { IntegrityError } from '../errors.js'
import { createChangeBatcher } from './change-batch.js'

/** The clocks of --watch, in got's shape: one object, any part of it given, the rest defaulted. */
export interface WatchTimings {
  /** How long to wait for the feed to connect before the watcher starts. */
  connectWaitMs: number
  /** Debounce: a batch is handed over after `quietMs` without a change, or `maxWaitMs` after its first. */
  debounce: { quietMs: number; maxWaitMs: number }
  /** The feed's reconnect backoff: `initialMs`, doubled after each failure up to `maxMs`. */
  backoff: { initialMs: number; maxMs: number }
  /** The feed reconnects when nothing (not even a heartbeat) arrived for this long. */
  silenceMs: number
}

/** What `vault run --watch` and `vault inject --watch` use. */
export const defaultWatchTimings: WatchTimings = Object.freeze({
  connectWaitMs: 5000,
  debounce: Object.freeze({ quietMs: 1000, maxWaitMs: 5000 }),
  ...defaultFollowTimings,
})

/** The defaults with the given parts laid over them. */
export function resolveWatchTimings(given: Partial<WatchTimings> = {}): WatchTimings {
  return { ...defaultWatchTimings, ...given }
}

export interface ChangeWatchOptions {
  settings: ConnectionSettings
  environment?: string
  note: (line: string) => void
  /** Shorter clocks than defaultWatchTimings (tests). */
  timings?: Partial<WatchTimings>
}

/** What a --watch command does: its main work, and its handling of a batch of changed names. */
export interface ChangeWatcher<T> {
  /** The first load and the work itself; resolves with the command's outcome. */
  run(): Promise<T>
  /** The outcome when the command is stopped before its work started. */
  stopped(): T
  onChanges(names: string[]): Promise<void>
}

const stopSignals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Runs the watcher `create` builds (it receives the signal that aborts when the command is stopped)
 * while following the feed. The feed is connected before `run` starts, so no change between the first
 * load and the subscription is missed; when it cannot connect within `connectWaitMs`, or no vault
 * answers its first attempt, the watcher starts anyway and says so. A stop while waiting ends the
 * command without starting the work. A refusal of the feed leaves the work running without --watch;
 * an answer of the feed no vault gives (IntegrityError) before the work started ends the command.
 */
export async function watchChanges<T>(
  options: ChangeWatchOptions,
  create: (stopping: AbortSignal) => Promise<ChangeWatcher<T>>,
): Promise<T> {
  const stopping = new AbortController()
  const onSignal = () => stopping.abort()
  for (const signal of stopSignals) process.on(signal, onSignal)
  const timings = resolveWatchTimings(options.timings)
  try {
    const watcher = await create(stopping.signal)
    const batcher = createChangeBatcher((names) => watcher.onChanges(names), timings.debounce)
    const { followChanges } = await import('../client/events.js')
    let settle: (connected: boolean) => void = () => undefined
    const ready = new Promise<boolean>((resolve) => (settle = resolve))
    const following = followChanges(options.settings, {
      environment: options.environment,
      signal: stopping.signal,
      onChange: (change: SecretChange) => batcher.add(change.name),
      onReady: () => settle(true),
      // no vault answered: waiting for the feed would only delay the work (the feed keeps trying)
      onUnreachable: () => settle(false),
      note: options.note,
      backoff: timings.backoff,
      silenceMs: timings.silenceMs,
    })
    let started = false
    let refusedBeforeStart: IntegrityError | undefined
    const feedDone = following.catch((error: unknown) => {
      // an answer no vault gives, before the work starts: the command does not start at all
      if (error instanceof IntegrityError && !started) refusedBeforeStart = error
      else options.note(`Warning: ${(error as Error).message}; the command keeps running without --watch`)
    })
    try {
      const waited = await Promise.race([
        ready,
        feedDone.then(() => false),
        new Promise<false>((resolve) => setTimeout(resolve, timings.connectWaitMs, false).unref()),
      ])
      if (stopping.signal.aborted) return watcher.stopped()
      if (refusedBeforeStart) throw refusedBeforeStart
      started = true
      if (!waited)
        options.note(
          'Warning: the change feed is not connected yet; changes made before it connects are missed',
        )
      return await watcher.run()
    } finally {
      stopping.abort()
      await batcher.close()
      await feedDone
    }
  } finally {
    for (const signal of stopSignals) process.off(signal, onSignal)
  }
}

/** Resolves when `signal` aborts (at once when it already has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}
