/**
 * The restart-the-child watch mode, driven with fake runs (no process is spawned): a change loads the
 * secrets first and restarts the child with them; a failed load leaves the child running; a child that
 * ends on its own ends the run with its code; a change after the CLI began stopping does nothing.
 */
import { describe, expect, it } from 'vitest'
import type { PreparedRun } from '../../../src/flows/run.js'
import type { WatchOptions } from '../../../src/flows/watch.js'
import { restartWatcher } from '../../../src/flows/watch-restart.js'

/** A run whose child ends with 143 when stopped, or with `code` when `exit(code)` is called. */
function fakeRun(label: string, starts: string[]) {
  let exit: (code: number) => void = () => undefined
  const run: PreparedRun = {
    start: (_command, _args, stop) =>
      new Promise<number>((resolve) => {
        starts.push(label)
        exit = resolve
        stop?.addEventListener('abort', () => resolve(143))
      }),
  }
  return { run, exit: (code: number) => exit(code) }
}

function watcher(prepare: () => Promise<PreparedRun>, stopping = new AbortController()) {
  const notes: string[] = []
  const mode = restartWatcher({
    prepare,
    note: (line: string) => notes.push(line),
    stopping: stopping.signal,
  } as unknown as WatchOptions & { stopping: AbortSignal })
  return { mode, notes, stopping }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('restartWatcher', () => {
  it('restarts the child with the fresh run after a change, and ends with the code of the last child', async () => {
    const starts: string[] = []
    const first = fakeRun('first', starts)
    const second = fakeRun('second', starts)
    const { mode, notes } = watcher(async () => second.run)
    const done = mode.run(first.run, 'app', [])
    await tick()
    await mode.onChanges(['DB_PASSWORD', 'API_KEY'])
    await tick()
    expect(starts).toEqual(['first', 'second'])
    second.exit(3)
    expect(await done).toBe(3)
    expect(notes).toEqual([
      'DB_PASSWORD, API_KEY changed: stopping the command to restart it',
      'restarting app with the new values',
    ])
  })

  it('leaves the child running when the secrets cannot be loaded', async () => {
    const starts: string[] = []
    const first = fakeRun('first', starts)
    const { mode, notes } = watcher(async () => {
      throw new Error('vault unreachable')
    })
    const done = mode.run(first.run, 'app', [])
    await tick()
    await mode.onChanges(['DB_PASSWORD'])
    first.exit(0)
    expect(await done).toBe(0)
    expect(starts).toEqual(['first'])
    expect(notes).toEqual([
      'Warning: DB_PASSWORD changed but the secrets could not be loaded (vault unreachable); the command keeps running with the old values',
    ])
  })

  it('ends with the code of a child that ends on its own', async () => {
    const starts: string[] = []
    const first = fakeRun('first', starts)
    const { mode } = watcher(async () => fakeRun('unused', starts).run)
    const done = mode.run(first.run, 'app', [])
    await tick()
    first.exit(7)
    expect(await done).toBe(7)
    expect(starts).toEqual(['first'])
  })

  it('does nothing on a change once the CLI is stopping', async () => {
    const starts: string[] = []
    const first = fakeRun('first', starts)
    let prepared = 0
    const { mode, stopping, notes } = watcher(async () => {
      prepared++
      return fakeRun('second', starts).run
    })
    const done = mode.run(first.run, 'app', [])
    await tick()
    stopping.abort()
    await mode.onChanges(['DB_PASSWORD'])
    first.exit(0)
    expect(await done).toBe(0)
    expect(prepared).toBe(0)
    expect(notes).toEqual([])
  })

  it('does not start the run it prepared when the CLI began stopping meanwhile', async () => {
    const starts: string[] = []
    const first = fakeRun('first', starts)
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const { mode, stopping, notes } = watcher(async () => {
      await gate
      return fakeRun('second', starts).run
    })
    const done = mode.run(first.run, 'app', [])
    await tick()
    const change = mode.onChanges(['DB_PASSWORD'])
    stopping.abort()
    release()
    await change
    first.exit(0)
    expect(await done).toBe(0)
    expect(starts).toEqual(['first'])
    expect(notes).toEqual([])
  })
})
