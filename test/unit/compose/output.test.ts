import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { escapeDollars, formatModel } from '../../../src/compose/output.js'

describe('escapeDollars', () => {
  it.each([
    ['pa$word', 'pa$$word'],
    ['$$', '$$$$'],
    ['${X}', '$${X}'],
    ['none', 'none'],
  ])('%s -> %s', (value, expected) => {
    expect(escapeDollars(value)).toBe(expected)
  })

  it('escapes values in nested maps and lists but never keys, and keeps other scalars', () => {
    expect(escapeDollars({ $key: ['a$', { b: '$c', n: 1, t: true, z: null }] })).toEqual({
      $key: ['a$$', { b: '$$c', n: 1, t: true, z: null }],
    })
  })
})

describe('formatModel', () => {
  const model = {
    name: 'p',
    services: { a: { environment: { YES: 'yes', ON: 'on', D: 'x$y' }, image: 'i' } },
  }

  it.each(['yaml', 'json'] as const)('%s output loads back to the escaped model', (format) => {
    const text = formatModel(model, format)
    expect(format === 'json' ? JSON.parse(text) : parse(text)).toEqual(escapeDollars(model))
  })

  it('quotes YAML 1.1 booleans so they stay strings', () => {
    expect(formatModel(model, 'yaml')).toMatch(/"?YES"?: "yes"\n\s+"?ON"?: "on"/)
  })

  it('keeps $ single without escaping', () => {
    expect(formatModel(model, 'json', false)).toContain('"x$y"')
  })
})
