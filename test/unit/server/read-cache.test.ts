/**
 * The generation-bound read caches (read-cache.ts) against a fake generation source whose reads the
 * test resolves by hand: a request never joins a generation read that was already under way when it
 * arrived, a changed generation empties the caches it covers, an entry computed under an older
 * generation is dropped, and every cache stays within its bounds.
 */
import { describe, expect, it } from 'vitest'
import { ReadCache, type Generation } from '../../../src/server/read-cache.js'

/** A generation source whose reads wait until the test answers them, in order. */
function manualSource() {
  const waiting: ((generation: Generation) => void)[] = []
  let current: Generation = { auth: '1', content: '1' }
  return {
    read: () => new Promise<Generation>((resolve) => waiting.push(resolve)),
    /** How many reads have started and are unanswered. */
    pending: () => waiting.length,
    set: (next: Partial<Generation>) => void (current = { ...current, ...next }),
    /** Answers the oldest read with the current generation. */
    answer: async () => {
      waiting.shift()!(current)
      await new Promise((resolve) => setImmediate(resolve))
    },
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('ReadCache', () => {
  it('never hands a request a generation read that started before the request arrived', async () => {
    const source = manualSource()
    const cache = new ReadCache(source.read)
    const early = cache.view()
    await tick()
    expect(source.pending()).toBe(1)
    // a change commits while the first read is in flight; a request arriving now must see it
    source.set({ auth: '2' })
    const late = cache.view()
    const alsoLate = cache.view()
    let lateAnswered = false
    void late.then(() => (lateAnswered = true))
    await tick()
    expect(source.pending()).toBe(1)
    await source.answer()
    expect(lateAnswered).toBe(false)
    expect(source.pending()).toBe(1)
    await source.answer()
    expect(lateAnswered).toBe(true)
    const [first, second, third] = await Promise.all([early, late, alsoLate])
    expect(first.generation.auth).toBe('2')
    expect(second.generation.auth).toBe('2')
    expect(third).not.toBe(second)
    expect(third.generation).toEqual(second.generation)
  })

  it('serves a principal only under the generation it was stored in', async () => {
    const source = manualSource()
    const cache = new ReadCache(source.read)
    const view = async () => {
      const pending = cache.view()
      await tick()
      await source.answer()
      return pending
    }
    const first = await view()
    first.storePrincipal('jti-1', { name: 'ci' })
    expect((await view()).principal('jti-1')).toEqual({ name: 'ci' })
    source.set({ content: '2' })
    expect((await view()).principal('jti-1')).toEqual({ name: 'ci' })
    source.set({ auth: '2' })
    const afterRevoke = await view()
    expect(afterRevoke.principal('jti-1')).toBeUndefined()
    // a lookup that began under the old generation must not refill the cache
    first.storePrincipal('jti-1', { name: 'stale' })
    expect(afterRevoke.principal('jti-1')).toBeUndefined()
    expect(first.principal('jti-1')).toBeUndefined()
  })

  it('empties listings when the contents or the principals change, environments only with principals', async () => {
    const source = manualSource()
    const cache = new ReadCache(source.read)
    const view = async () => {
      const pending = cache.view()
      await tick()
      await source.answer()
      return pending
    }
    const first = await view()
    first.storeListing(['p', 'dev', 'values'], ['A'], 10)
    first.storeEnvironment('p', 'dev', true)
    expect((await view()).listing(['p', 'dev', 'values'])).toEqual(['A'])
    source.set({ content: '2' })
    const patched = await view()
    expect(patched.listing(['p', 'dev', 'values'])).toBeUndefined()
    expect(patched.environmentExists('p', 'dev')).toBe(true)
    first.storeListing(['p', 'dev', 'values'], ['stale'], 10)
    expect(patched.listing(['p', 'dev', 'values'])).toBeUndefined()
    patched.storeListing(['p', 'dev', 'values'], ['B'], 10)
    source.set({ auth: '2' })
    const deleted = await view()
    expect(deleted.listing(['p', 'dev', 'values'])).toBeUndefined()
    expect(deleted.environmentExists('p', 'dev')).toBeUndefined()
  })

  it('keeps every cache within its bounds, whatever a caller with many tokens sends', async () => {
    const limits = { principals: 3, environments: 2, webhooks: 2, listings: 2, listingChars: 100 }
    const cache = new ReadCache(async () => ({ auth: '1', content: '1' }), limits)
    const view = await cache.view()
    for (let i = 0; i < 50; i++) view.storePrincipal(`jti-${i}`, { i })
    for (let i = 0; i < 50; i++) view.storeEnvironment('p', `env-${i}`, true)
    view.storeListing(['p', 'a'], ['a'], 20)
    view.storeListing(['p', 'b'], ['b'], 20)
    view.storeListing(['p', 'c'], ['c'], 20)
    for (let i = 0; i < 50; i++) view.storeWebhookIds(`project-${i}`, [`hook-${i}`])
    expect(cache.sizes()).toEqual({ principals: 3, environments: 2, webhooks: 2, listings: 2 })
    expect(view.principal('jti-49')).toEqual({ i: 49 })
    expect(view.principal('jti-0')).toBeUndefined()
    view.storeListing(['p', 'huge'], ['huge'], 30)
    expect(view.listing(['p', 'huge'])).toBeUndefined()
    view.storeListing(['p', 'd'], ['d'], 25)
    view.storeListing(['p', 'e'], ['e'], 25)
    expect(cache.sizes().listings).toBeLessThanOrEqual(2)
  })

  it('fails the requests of a failed generation read, and the next request reads again', async () => {
    let fail = true
    let reads = 0
    const cache = new ReadCache(async () => {
      reads++
      if (fail) throw new Error('connection refused')
      return { auth: '1', content: '1' }
    })
    await expect(cache.view()).rejects.toThrow('connection refused')
    fail = false
    await expect(cache.view()).resolves.toBeDefined()
    expect(reads).toBe(2)
  })
})
