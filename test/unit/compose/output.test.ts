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

describe('the YAML writer', () => {
  const tricky = [
    'yes',
    'on',
    'Off',
    'Y',
    'n',
    'null',
    '~',
    '',
    ' lead',
    'trail ',
    '1.0',
    '0777',
    '0x1F',
    '1e3',
    '.inf',
    '2024-01-01',
    '-g',
    '- a',
    'a: b',
    'key:',
    ':x',
    'x #y',
    '#x',
    '@x',
    '`x`',
    'multi\nline',
    '"q"',
    "it's",
    '[a]',
    '{a}',
    '*a',
    '&a',
    '!a',
    '%a',
    '|',
    '>',
    '?',
    ',x',
    'a,b',
    '=x',
    'tab\tin',
    'unicode é',
    '$HOME',
  ]

  it.each(tricky)('writes %j so YAML 1.2 and 1.1 readers read the same string', (text) => {
    const written = formatModel(
      { services: { a: { environment: { [text || 'EMPTY']: text }, command: [text] } } },
      'yaml',
      false,
    )
    for (const version of ['1.2', '1.1'] as const) {
      const read = parse(written, { version })
      expect(read.services.a.environment[text || 'EMPTY']).toBe(text)
      expect(read.services.a.command).toEqual([text])
    }
  })

  it('writes empty collections, numbers, booleans and null', () => {
    const model = { a: {}, b: [], c: [{}, [], { d: [1, 2.5, true, null] }], e: -0.5 }
    expect(parse(formatModel(model, 'yaml'))).toEqual(model)
  })
})
