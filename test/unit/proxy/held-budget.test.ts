/** The global budget of held bytes: the largest stalled holder is closed first, small holders are kept. */
import { describe, expect, it } from 'vitest'
import { createHeldBudget } from '../../../src/proxy/held-budget.js'

describe('createHeldBudget', () => {
  it('grants reservations within the budget and takes them back on release', () => {
    const budget = createHeldBudget(100)
    const a = budget.holder(() => {})
    expect(a.reserve(60)).toBe(true)
    expect(a.reserve(40)).toBe(true)
    expect(budget.held).toBe(100)
    a.release()
    a.release()
    expect(budget.held).toBe(0)
  })

  it('closes the largest evictable holder to make room, never a small one first', () => {
    const budget = createHeldBudget(100)
    const closed: string[] = []
    const big = budget.holder(() => closed.push('big'))
    const small = budget.holder(() => closed.push('small'))
    big.evictable = true
    small.evictable = true
    big.reserve(70)
    small.reserve(20)
    const newcomer = budget.holder(() => closed.push('newcomer'))
    expect(newcomer.reserve(30)).toBe(true)
    expect(closed).toEqual(['big'])
    expect(budget.held).toBe(50)
    expect(budget.evictions).toBe(1)
  })

  it('refuses the one asking when no evictable holder holds more than it would', () => {
    const budget = createHeldBudget(100)
    const closed: string[] = []
    const stalled = budget.holder(() => closed.push('stalled'))
    stalled.evictable = true
    stalled.reserve(30)
    const collecting = budget.holder(() => closed.push('collecting'))
    collecting.reserve(60)
    const asking = budget.holder(() => closed.push('asking'))
    asking.reserve(5)
    expect(asking.reserve(30)).toBe(false)
    expect(closed).toEqual([])
    expect(budget.held).toBe(95)
  })

  it('never evicts the holder that asks, even when it is the largest', () => {
    const budget = createHeldBudget(10)
    const self = budget.holder(() => {
      throw new Error('evicted itself')
    })
    self.evictable = true
    expect(self.reserve(10)).toBe(true)
    expect(self.reserve(1)).toBe(false)
  })
})

describe('garbage left by holding', () => {
  it('runs a full collection after each garbageBytes discarded, none without a collector', () => {
    let collections = 0
    const budget = createHeldBudget(100, { collect: () => collections++, garbageBytes: 10 })
    budget.discarded(6)
    expect(collections).toBe(0)
    budget.discarded(6)
    expect(collections).toBe(1)
    budget.discarded(9)
    expect(collections).toBe(1)
    expect(() => createHeldBudget(100).discarded(1_000)).not.toThrow()
  })
})
