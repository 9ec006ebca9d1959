import { describe, expect, it } from 'vitest'
import { SecretHints } from '../../../../src/server/secrets/secret-hints.js'
import type { SecretRow } from '../../../../src/server/secrets/secret-rows.js'

const at = { projectId: 'p1', environment: 'dev' }
const row = (name: string, version: number): SecretRow => ({
  id: `id-${name}`,
  name,
  version,
  deleted: 0,
  created_at: '2026-11-26T00:00:00.000Z',
  updated_at: '2026-11-26T00:00:00.000Z',
})

describe('SecretHints', () => {
  it('keeps the last row written per (project, environment, name), apart from other scopes', () => {
    const hints = new SecretHints()
    hints.set(at, row('A', 1))
    hints.set(at, row('A', 2))
    hints.set({ projectId: 'p1', environment: 'prod' }, row('A', 9))
    expect(hints.get(at, 'A')?.version).toBe(2)
    expect(hints.get({ projectId: 'p1', environment: 'prod' }, 'A')?.version).toBe(9)
    expect(hints.get({ projectId: 'p2', environment: 'dev' }, 'A')).toBeUndefined()
  })

  it('does not confuse scopes whose parts run together', () => {
    const hints = new SecretHints()
    hints.set({ projectId: 'p', environment: '1dev' }, row('A', 1))
    expect(hints.get({ projectId: 'p1', environment: 'dev' }, 'A')).toBeUndefined()
  })

  it('holds a copy that later changes to the caller row do not reach', () => {
    const hints = new SecretHints()
    const written = row('A', 1)
    hints.set(at, written)
    written.version = 7
    expect(hints.get(at, 'A')?.version).toBe(1)
    expect(Object.isFrozen(hints.get(at, 'A'))).toBe(true)
  })

  it('drops the hint least recently written once over capacity, and forgets on request', () => {
    const hints = new SecretHints(2)
    hints.set(at, row('A', 1))
    hints.set(at, row('B', 1))
    hints.set(at, row('A', 2))
    hints.set(at, row('C', 1))
    expect(hints.size).toBe(2)
    expect(hints.get(at, 'B')).toBeUndefined()
    expect(hints.get(at, 'A')?.version).toBe(2)
    hints.forget(at, 'A')
    expect(hints.get(at, 'A')).toBeUndefined()
  })
})
