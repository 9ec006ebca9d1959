/**
 * The decoders of the vault's answers, the CLI's trust boundary with whatever VAULT_DOMAIN names: wrong
 * shapes, inherited fields, names that are syntax somewhere else and terminal escapes are refused with a
 * VaultAnswerError (exit 8) whose message shows the hostile text escaped and cut short.
 */
import { describe, expect, it } from 'vitest'
import {
  arrayOf,
  AnswerShapeError,
  boolean,
  count,
  decodeAnswer,
  field,
  nonEmptyString,
  object,
  oneOf,
  optional,
  redirectError,
  secretName,
  shownText,
  string,
  uniqueNames,
  VaultAnswerError,
  type Decoder,
} from '../../../src/client/vault-answer.js'

function refusal(body: unknown, decoder: Decoder<unknown>): VaultAnswerError {
  try {
    decodeAnswer('GET secrets', body, decoder)
  } catch (error) {
    expect(error).toBeInstanceOf(VaultAnswerError)
    return error as VaultAnswerError
  }
  throw new Error(`accepted ${JSON.stringify(body)}`)
}

const secretList: Decoder<{ name: string; version: number }[]> = (value, where) =>
  uniqueNames(
    arrayOf((item, at) => {
      const record = object(item, at)
      return { name: field(record, 'name', secretName, at), version: field(record, 'version', count, at) }
    })(
      field(object(value, where), 'secrets', (v) => v, where),
      'secrets',
    ),
    'secrets',
  )

describe('decodeAnswer', () => {
  it('rebuilds the answer from the known fields alone', () => {
    const body = JSON.parse('{"secrets":[{"name":"DB_PASSWORD","version":3,"extra":"x"}],"more":1}')
    expect(decodeAnswer('GET secrets', body, secretList)).toEqual([{ name: 'DB_PASSWORD', version: 3 }])
  })

  it('names the request and the place in the answer', () => {
    const error = refusal({ secrets: [{ name: 'A', version: -1 }] }, secretList)
    expect(error.message).toBe(
      "refusing the vault's answer to GET secrets: secrets[0].version is a number, not a non-negative integer",
    )
    expect(error.exitCode).toBe(8)
    expect(error.hint).toMatch(/VAULT_DOMAIN/)
  })

  it.each([
    ['NODE_OPTIONS=--require=x.js'],
    ['X;touch f;Y'],
    ['A\u001b]0;owned\u0007'],
    ['A B'],
    [''],
    ['a'.repeat(300)],
  ])('refuses the secret name %j, shown escaped', (name) => {
    const error = refusal({ secrets: [{ name, version: 1 }] }, secretList)
    // eslint-disable-next-line no-control-regex -- the test looks for raw control characters
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f]/)
    expect(error.message.length).toBeLessThan(300)
  })

  it('does not take fields from the prototype chain (JSON.parse makes __proto__ an own field)', () => {
    const body = JSON.parse('{"secrets":[{"__proto__":{"name":"A","version":1}}]}')
    expect(refusal(body, secretList).message).toMatch(/secrets\[0\]\.name is absent, not a secret name/)
    const inherited = Object.create({ name: 'A', version: 1 }) as object
    expect(refusal({ secrets: [inherited] }, secretList).message).toMatch(/name is absent/)
  })

  it('refuses a name given twice', () => {
    const body = {
      secrets: [
        { name: 'A', version: 1 },
        { name: 'A', version: 2 },
      ],
    }
    expect(refusal(body, secretList).message).toMatch(/secrets names A twice/)
  })

  it('passes on errors that are not about the shape', () => {
    expect(() =>
      decodeAnswer('GET x', 1, () => {
        throw new RangeError('not mine')
      }),
    ).toThrow(RangeError)
  })
})

describe('the decoders', () => {
  const at = (decoder: Decoder<unknown>, value: unknown) => {
    try {
      return decoder(value, 'x')
    } catch (error) {
      expect(error).toBeInstanceOf(AnswerShapeError)
      return (error as Error).message
    }
  }

  it('tell the kinds of JSON values apart', () => {
    expect(at(object, [])).toBe('x is an array, not an object')
    expect(at(object, null)).toBe('x is null, not an object')
    expect(at(string, 1)).toBe('x is a number, not a string')
    expect(at(nonEmptyString, '')).toBe('x is the string "", not a non-empty string')
    expect(at(boolean, 'true')).toBe('x is the string "true", not true or false')
    expect(at(count, 2 ** 53)).toMatch(/not a non-negative integer/)
    expect(at(count, 1.5)).toMatch(/not a non-negative integer/)
    expect(at(count, 0)).toBe(0)
    expect(at(oneOf(['a', 'b']), 'c')).toBe('x is the string "c", not one of a, b')
    expect(at(oneOf(['a', 'b']), 'toString')).toMatch(/not one of/)
    expect(at(optional(string), null)).toBeUndefined()
    expect(at(arrayOf(count), [1, 'a'])).toBe('x[1] is the string "a", not a non-negative integer')
  })

  it('cut shown text to 80 characters and escape control characters', () => {
    const shown = shownText(`${'a'.repeat(100)}`)
    expect(shown).toBe(JSON.stringify(`${'a'.repeat(80)}...`))
    // eslint-disable-next-line no-control-regex -- the test looks for raw control characters
    expect(shownText('\u001b[31mred\u009b')).not.toMatch(/[\u001b\u009b]/)
  })

  it('refuse every redirect, naming where it pointed, escaped', () => {
    const error = redirectError('GET secrets', 302, 'https://evil.example/\u001b[2J')
    expect(error.message).toMatch(/a redirect \(HTTP 302\) to "https:\/\/evil\.example\//)
    expect(error.message).not.toContain('\u001b')
    expect(redirectError('GET secrets', 301, ['a', 'b']).message).toMatch(/\(HTTP 301\); redirects/)
  })
})
