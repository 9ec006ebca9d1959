import { describe, expect, it } from 'vitest'
import { redactValues } from '../../../src/text/mask-text.js'

describe('redactValues', () => {
  it.each([
    ['error near s3cr3t-value here', ['s3cr3t-value'], 'error near ******** here'],
    ['abc', ['ab'], 'abc'],
    ['longer-secret and longer', ['longer', 'longer-secret'], '******** and ********'],
  ])('%j', (text, values, expected) => {
    expect(redactValues(text, values)).toBe(expected)
  })
})
