import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createChangeBatcher } from '../../../src/delivery/change-batch.js'

describe('createChangeBatcher', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('hands over changes close together as one batch, after the quiet period', async () => {
    const batches: string[][] = []
    const batcher = createChangeBatcher(async (names) => void batches.push(names), {
      quietMs: 1000,
      maxWaitMs: 5000,
    })
    batcher.add('B')
    await vi.advanceTimersByTimeAsync(500)
    batcher.add('A')
    batcher.add('B')
    await vi.advanceTimersByTimeAsync(999)
    expect(batches).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(batches).toEqual([['A', 'B']])
  })

  it('does not wait longer than maxWaitMs under a steady stream of changes', async () => {
    const batches: string[][] = []
    const batcher = createChangeBatcher(async (names) => void batches.push(names), {
      quietMs: 1000,
      maxWaitMs: 3000,
    })
    for (let index = 0; index < 10; index++) {
      batcher.add(`N${index}`)
      await vi.advanceTimersByTimeAsync(500)
    }
    expect(batches[0]).toEqual(['N0', 'N1', 'N2', 'N3', 'N4', 'N5'])
  })

  it('never runs two batches at once; close waits for the running one and drops the rest', async () => {
    let release!: () => void
    const running: string[][] = []
    const batcher = createChangeBatcher(
      (names) => {
        running.push(names)
        return new Promise<void>((resolve) => (release = resolve))
      },
      { quietMs: 10, maxWaitMs: 100 },
    )
    batcher.add('A')
    await vi.advanceTimersByTimeAsync(10)
    batcher.add('B')
    await vi.advanceTimersByTimeAsync(10)
    expect(running).toEqual([['A']])
    release()
    await vi.advanceTimersByTimeAsync(0)
    expect(running).toEqual([['A'], ['B']])
    const closed = batcher.close()
    batcher.add('C')
    release()
    await closed
    await vi.advanceTimersByTimeAsync(100)
    expect(running).toEqual([['A'], ['B']])
  })
})
