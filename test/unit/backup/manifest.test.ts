import { describe, expect, it } from 'vitest'
import { canonicalRows } from '../../../src/backup/manifest.js'

describe('backup helpers: canonicalRows', () => {
  it('orders rows and columns canonically', () => {
    expect(
      canonicalRows([
        { b: 2, a: 'y' },
        { a: 'x', b: 1 },
      ]).map((row) => Object.keys(row)),
    ).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ])
    expect(canonicalRows([{ a: 'y' }, { a: 'x' }])).toEqual([{ a: 'x' }, { a: 'y' }])
  })
})
