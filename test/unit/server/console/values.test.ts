/**
 * Values and version numbers as a console form sends them: the form body is the trust boundary.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { VaultContext } from '../../../../src/server/context.js'
import { ApiError } from '../../../../src/server/http/http.js'
import { formValue, versionOf } from '../../../../src/server/console/values.js'

const context = { limits: { maxValueBytes: 8 } } as unknown as VaultContext

function status(run: () => unknown): number {
  try {
    run()
    return 200
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return error.status
  }
}

describe('formValue', () => {
  it('turns the browser CRLF line breaks into LF and keeps lone CR', () => {
    expect(formValue(context, 'a\r\nb\rc')).toBe('a\nb\rc')
  })

  it('counts the limit in UTF-8 bytes after the CRLF conversion', () => {
    expect(formValue(context, '12345678')).toBe('12345678')
    expect(status(() => formValue(context, '123456789'))).toBe(413)
    expect(formValue(context, 'a\r\nb\r\nc\r\nd\r\n')).toBe('a\nb\nc\nd\n')
    expect(formValue(context, 'éééé')).toBe('éééé')
    expect(status(() => formValue(context, 'éééé1'))).toBe(413)
    expect(status(() => formValue(context, '😀😀1'))).toBe(413)
  })

  it('answers 400 without a value', () => {
    expect(status(() => formValue(context, undefined))).toBe(400)
  })
})

describe('versionOf', () => {
  it('accepts exactly the decimal integers 1 .. 9999999999 without sign or leading zero', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        const expected = /^[1-9]\d*$/.test(text) && BigInt(text) <= 9_999_999_999n
        expect(status(() => versionOf(text))).toBe(expected ? 200 : 400)
        if (expected) expect(versionOf(text)).toBe(Number(text))
      }),
    )
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999_999 }), (version) => {
        expect(versionOf(String(version))).toBe(version)
      }),
    )
  })

  it.each([
    null,
    undefined,
    '',
    '0',
    '01',
    '-1',
    '+1',
    '1e3',
    '0x10',
    '1.0',
    ' 1',
    '1\n',
    '١',
    '12345678901',
    'constructor',
  ])('answers 400 for %j', (text) => {
    expect(status(() => versionOf(text))).toBe(400)
  })
})
