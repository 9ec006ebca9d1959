import { describe, expect, it } from 'vitest'
import { formatTable } from '../../../src/ui/table.js'

describe('formatTable', () => {
  it.each([
    [['A', 'B'], [], 'A  B'],
    [
      ['NAME', 'X'],
      [
        ['long-name', '1'],
        ['n', '22'],
      ],
      'NAME       X\nlong-name  1\nn          22',
    ],
    [['A', 'LAST'], [['x', '']], 'A  LAST\nx'],
  ])('aligns %j', (headers, rows, expected) => {
    expect(formatTable(headers, rows)).toBe(expected)
  })
})
