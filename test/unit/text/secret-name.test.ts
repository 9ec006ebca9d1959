/** The rule of a secret name: UPPER_SNAKE_CASE of at most 256 characters, nothing else. */
import { describe, expect, it } from 'vitest'
import { isSecretName, maxSecretNameLength } from '../../../src/text/secret-name.js'

describe('isSecretName', () => {
  it.each(['A', 'DB_PASSWORD', 'X1', 'A__B_', 'A'.repeat(256)])('accepts %s', (name) => {
    expect(isSecretName(name)).toBe(true)
  })

  it.each([
    ['one character too long', 'A'.repeat(257)],
    ['empty', ''],
    ['lower case', 'db_password'],
    ['a leading digit', '1PASSWORD'],
    ['a leading underscore', '_PASSWORD'],
    ['an equals sign', 'A=B'],
    ['a shell metacharacter', 'A;B'],
    ['a space', 'A B'],
    ['a newline at the end', 'A\n'],
    ['a prototype name', '__proto__'],
    ['a hyphen', 'DB-PASSWORD'],
    ['a non-ASCII capital', 'Ä'],
  ])('refuses %s', (_label, name) => {
    expect(isSecretName(name)).toBe(false)
  })

  it.each([undefined, null, 42, ['A'], { name: 'A' }])(
    'refuses a value that is not a string: %j',
    (value) => {
      expect(isSecretName(value)).toBe(false)
    },
  )

  it('states the limit it checks', () => {
    expect(maxSecretNameLength).toBe(256)
  })
})
