import { describe, expect, it } from 'vitest'
import { parseEnvFile, readEnvFile } from '../../../src/compose/env-file.js'
import { ComposeInputError, RequiredVariableError } from '../../../src/compose/errors.js'

const host: Record<string, string> = { HOST: 'from-host', HOST_EMPTY: '' }
const lookup = (name: string) => (Object.hasOwn(host, name) ? host[name] : undefined)
const parse = (text: string) => parseEnvFile(text, lookup, { file: 'stack/.env' })

describe('parseEnvFile: lines', () => {
  it.each([
    ['blank lines and comments are skipped', '\n# comment\n  # indented comment\nA=1\n\n', { A: '1' }],
    ['export prefix is dropped', 'export A=1\nexport  B=2', { A: '1', B: '2' }],
    ['KEY: value form', 'A: 1\nB:  two words', { A: '1', B: 'two words' }],
    [
      'keys may use . - [ ] digits',
      'a.b=1\nc-d=2\ne[0]=3\n9X=4',
      { 'a.b': '1', 'c-d': '2', 'e[0]': '3', '9X': '4' },
    ],
    ['last duplicate wins', 'A=1\nA=2', { A: '2' }],
    ['CRLF line ends', 'A=1\r\nB=2\r\n', { A: '1', B: '2' }],
    ['a space around = is trimmed', 'A = 1', { A: '1' }],
    ['an empty value is empty', 'A=\nB=""', { A: '', B: '' }],
  ])('%s', (_, text, expected) => {
    expect(parse(text)).toEqual(expected)
  })

  it('a bare KEY inherits from the environment, left out when unset there', () => {
    expect(parse('HOST\nHOST_EMPTY\nMISSING')).toEqual({ HOST: 'from-host', HOST_EMPTY: '' })
  })
})

describe('parseEnvFile: unquoted values', () => {
  it.each([
    ['runs to end of line, trimmed', 'A=  hello world  ', 'hello world'],
    ['cut at the first space-hash', 'A=value # comment', 'value'],
    ['a hash without a space stays', 'A=abc#def', 'abc#def'],
    ['interpolated', 'A=x-${HOST}-$HOST', 'x-from-host-from-host'],
    ['$$ is a literal $', 'A=pa$$word', 'pa$word'],
    ['backslashes stay', 'A=a\\nb', 'a\\nb'],
    ['an inner quote stays', "A=it's", "it's"],
  ])('%s', (_, text, expected) => {
    expect(parse(text).A).toBe(expected)
  })
})

describe('parseEnvFile: quoted values', () => {
  it.each([
    ['single quotes are literal', "A='$HOST \\n ${X:?e}'", '$HOST \\n ${X:?e}'],
    ['single quotes span lines', "A='one\ntwo'\nB=3", 'one\ntwo'],
    ['double quotes expand escapes', 'A="a\\nb\\tc\\rd\\\\e\\"f"', 'a\nb\tc\rd\\e"f'],
    ['double quotes interpolate', 'A="x ${HOST}"', 'x from-host'],
    ['\\$ in double quotes is a literal $', 'A="\\$HOST"', '$HOST'],
    ['double quotes span lines', 'A="one\ntwo"', 'one\ntwo'],
    ['a comment after the closing quote is ignored', 'A="v" # c', 'v'],
    ['a hash inside quotes stays', 'A="a #b"', 'a #b'],
  ])('%s', (_, text, expected) => {
    expect(parse(text).A).toBe(expected)
  })

  it('counts lines after a multi-line value', () => {
    const result = readEnvFile('A="1\n2\n3"\nB=x', lookup)
    expect(result.entries.map((entry) => [entry.key, entry.line])).toEqual([
      ['A', 1],
      ['B', 4],
    ])
  })
})

describe('parseEnvFile: lookups inside the file', () => {
  it('references see the environment first, then keys already read', () => {
    expect(parse('HOST=file\nA=${HOST}\nB=x\nC=${B}-${LATER:-none}\nLATER=1')).toEqual({
      HOST: 'file',
      A: 'from-host',
      B: 'x',
      C: 'x-none',
      LATER: '1',
    })
  })

  it('records the references of each key', () => {
    const result = readEnvFile('A=${B:-d}\nC=plain', lookup)
    expect(result.entries[0]!.references).toEqual([{ name: 'B', operator: ':-', word: 'd', required: false }])
    expect(result.entries[1]!.references).toEqual([])
  })

  it('reports unset plain references with their line', () => {
    const unset: [string, number][] = []
    readEnvFile('A=1\nB=$NOPE', lookup, { onUnset: (name, line) => unset.push([name, line]) })
    expect(unset).toEqual([['NOPE', 2]])
  })
})

describe('parseEnvFile: errors name the line', () => {
  it.each([
    ['a space inside a key', 'A=1\nMY KEY=x', 'stack/.env:2: a key may not contain spaces'],
    [
      'an unterminated double quote',
      'A=1\n\nB="abc\nC=2',
      'stack/.env:3: unterminated quoted value (missing closing ")',
    ],
    ['an unterminated single quote', "A='abc", "stack/.env:1: unterminated quoted value (missing closing ')"],
    [
      'a malformed reference',
      'A=${B:=x}',
      'stack/.env:1: Invalid template in the value of A (the value is not shown)',
    ],
    [
      'an invalid key',
      'A$B=1',
      'stack/.env:1: unexpected character "$" in a variable name (keys use letters, digits and _ . - [ ])',
    ],
  ])('%s', (_, text, message) => {
    let thrown: unknown
    try {
      parse(text)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ComposeInputError)
    expect((thrown as Error).message).toBe(message)
    expect((thrown as ComposeInputError).exitCode).toBe(2)
  })
})

it('a required variable without a value is a RequiredVariableError (exit 3) naming the line', () => {
  let thrown: unknown
  try {
    parse('A=1\nB=${NOPE:?set it}')
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(RequiredVariableError)
  expect((thrown as Error).message).toBe('stack/.env:2: required variable NOPE is missing a value: set it')
  expect((thrown as RequiredVariableError).exitCode).toBe(3)
})
