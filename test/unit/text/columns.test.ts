import { describe, expect, it } from 'vitest'
import { formatColumns } from '../../../src/text/columns.js'

describe('formatColumns with a header', () => {
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
    expect(formatColumns(rows, headers)).toBe(expected)
  })
})

describe('formatColumns', () => {
  it('aligns columns and trims the last', () => {
    expect(
      formatColumns(
        [
          ['A', '1'],
          ['LONGER', '22'],
        ],
        ['NAME', 'V'],
      ),
    ).toBe('NAME    V\nA       1\nLONGER  22')
  })
})
