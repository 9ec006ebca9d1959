import { describe, expect, it } from 'vitest'
import { inspect } from 'node:util'
import { redactSecrets, secretArguments } from '../../../src/cli/debug-redaction.js'

describe('secret flag values on the command line', () => {
  it.each([
    [['secrets', 'set', 'A', '--value', 'v1'], ['v1']],
    [['secrets', 'set', 'A', '--value=v=2'], ['v=2']],
    [
      ['restore', '--db-url', 'postgres://u:p@h/d', '--encryption-key=k'],
      ['postgres://u:p@h/d', 'k'],
    ],
    [['secrets', 'set', 'A', '--env', 'dev'], []],
    [['secrets', 'set', 'A', '--value'], []],
  ])('%j -> %j', (argv, expected) => {
    expect(secretArguments(argv)).toEqual(expected)
  })

  it('redacts the raw value and its inspect and JSON forms', () => {
    const secret = `it's "x"\n`
    const text = `${secret} ${inspect([secret])} ${JSON.stringify(secret)}`
    const redacted = redactSecrets(text, [secret])
    expect(redacted).not.toContain('x')
  })
})
