/**
 * The compose driver of the provider tests decodes as docker/compose does (Go's encoding/json into
 * JsonMessage and ProviderMetadata, pkg/compose/plugins.go at f72979427042620a94dd52ce78b39c68cb02c085),
 * so that a provider test cannot pass on output compose would reject.
 */
import { describe, expect, it } from 'vitest'
import {
  decodeMessageStream,
  decodeProviderMetadata,
  isEmptyMetadata,
  multiOptions,
} from './compose-provider-driver.js'

describe('decodeMessageStream', () => {
  it.each([
    ['one per line', '{"type":"info","message":"a"}\n{"type":"setenv","message":"K=V"}\n', 2, false],
    [
      'no separator (json.Decoder needs none)',
      '{"type":"info","message":"a"}{"type":"info","message":"b"}',
      2,
      false,
    ],
    ['keys in another case (Go matches them)', '{"TYPE":"info","Message":"a"}', 1, false],
    ['nothing', '', 0, false],
    ['a line that is not JSON', '{"type":"info","message":"a"}\nhello\n', 1, true],
    ['a string instead of an object', '"info"', 0, true],
    ['a message that is not a string', '{"type":"info","message":1}', 0, true],
    ['a cut-off object', '{"type":"info"', 0, true],
  ])('%s', (_, stdout, count, failed) => {
    const decoded = decodeMessageStream(stdout)
    expect(decoded.messages).toHaveLength(count)
    expect(decoded.error !== undefined).toBe(failed)
  })

  it('keeps a message with a newline and braces in it whole', () => {
    const message = 'K=a\n"}{"type":"error"}'
    expect(decodeMessageStream(JSON.stringify({ type: 'rawsetenv', message })).messages).toEqual([
      { type: 'rawsetenv', message },
    ])
  })
})

describe('decodeProviderMetadata', () => {
  it.each([
    ['not JSON', 'nope'],
    ['required as a string', '{"up":{"parameters":[{"name":"a","required":"true"}]}}'],
    ['default as a boolean', '{"up":{"parameters":[{"name":"a","default":true}]}}'],
    ['parameters as an object', '{"up":{"parameters":{}}}'],
  ])('fails where Go fails: %s', (_, text) => {
    expect(decodeProviderMetadata(text)).toBeUndefined()
  })

  it('is empty without description and up/down parameters; [] is not nil', () => {
    expect(isEmptyMetadata(decodeProviderMetadata('{}')!)).toBe(true)
    expect(isEmptyMetadata(decodeProviderMetadata('{"down":{"parameters":[]}}')!)).toBe(false)
    expect(decodeProviderMetadata('null')!.up).toEqual({ parameters: null })
  })
})

describe('multiOptions', () => {
  it("turns scalars and lists into strings as fmt.Sprint does (a YAML null is '<nil>')", () => {
    expect(Object.fromEntries(multiOptions({ a: 'x', b: false, c: 5, d: null, e: ['p', true] }))).toEqual({
      a: ['x'],
      b: ['false'],
      c: ['5'],
      d: ['<nil>'],
      e: ['p', 'true'],
    })
  })
})
