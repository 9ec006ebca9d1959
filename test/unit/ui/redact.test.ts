import { describe, expect, it } from 'vitest'
import { formatColumns } from '../../../src/ui/columns.js'
import { redactValues } from '../../../src/ui/redact.js'

describe('redactValues', () => {
  it.each([
    ['error near s3cr3t-value here', ['s3cr3t-value'], 'error near ******** here'],
    ['abc', ['ab'], 'abc'],
    ['longer-secret and longer', ['longer', 'longer-secret'], '******** and ********'],
  ])('%j', (text, values, expected) => {
    expect(redactValues(text, values)).toBe(expected)
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
