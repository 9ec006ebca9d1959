import { describe, expect, it } from 'vitest'
import { OpenedValueCache } from '../../../../src/server/secrets/opened-values.js'

const at = { projectId: 'p1', environment: 'dev', name: 'DB_PASSWORD', version: 3 }

describe('opened-value cache', () => {
  const cache = new OpenedValueCache()
  cache.set(at, 'v1.ciphertext', 1, 'the-value')

  it('answers for the exact address, key version and ciphertext', () => {
    expect(cache.get({ ...at }, 'v1.ciphertext', 1)).toBe('the-value')
  })

  it.each([
    ['another ciphertext (a flipped bit)', at, 'v1.ciphertexu', 1],
    ['another key version', at, 'v1.ciphertext', 2],
    ['another version', { ...at, version: 4 }, 'v1.ciphertext', 1],
    ['another name (ciphertext copied into another row)', { ...at, name: 'OTHER' }, 'v1.ciphertext', 1],
    ['another environment', { ...at, environment: 'prod' }, 'v1.ciphertext', 1],
    ['another project', { ...at, projectId: 'p2' }, 'v1.ciphertext', 1],
  ])('misses for %s', (_label, address, ciphertext, keyVersion) => {
    expect(cache.get(address, ciphertext, keyVersion)).toBeUndefined()
  })

  it('holds one version per secret: a newer value replaces the older one', () => {
    const own = new OpenedValueCache()
    own.set(at, 'v1.old', 1, 'old')
    own.set({ ...at, version: 4 }, 'v1.new', 1, 'new')
    expect(own.size).toBe(1)
    expect(own.get(at, 'v1.old', 1)).toBeUndefined()
    expect(own.get({ ...at, version: 4 }, 'v1.new', 1)).toBe('new')
  })

  it.each([
    ['entries', { entries: 3, bytes: 1 << 20 }, 'x'],
    ['bytes', { entries: 1000, bytes: 1000 }, 'x'.repeat(200)],
  ])('stays within its %s limit', (_label, limits, value) => {
    const bounded = new OpenedValueCache(limits)
    for (let index = 0; index < 50; index++)
      bounded.set({ ...at, name: `N_${index}` }, `v1.${index}`, 1, value)
    expect(bounded.size).toBeGreaterThan(0)
    expect(bounded.size).toBeLessThanOrEqual(limits.entries)
    expect(bounded.size * 2 * value.length).toBeLessThanOrEqual(limits.bytes)
    expect(bounded.get({ ...at, name: 'N_49' }, 'v1.49', 1)).toBe(value)
  })

  it('does not hold a value larger than its byte limit', () => {
    const bounded = new OpenedValueCache({ entries: 10, bytes: 100 })
    bounded.set(at, 'v1.c', 1, 'x'.repeat(100))
    expect(bounded.size).toBe(0)
  })
})
