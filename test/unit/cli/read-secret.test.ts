/**
 * Where `vault secrets set` takes a value from: an explicit --value (warned: argv is not private), or
 * piped stdin with one trailing line break dropped; the value is never part of a warning.
 */
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import {
  readDevAdminPassword,
  readPipedValue,
  readSecretValue,
  warnCommandLineSecret,
} from '../../../src/cli/read-secret.js'

const canary = 'CANARY-4b1d-secret'

function piped(...chunks: Array<string | Buffer>): NodeJS.ReadStream {
  return Object.assign(Readable.from(chunks), { isTTY: false }) as unknown as NodeJS.ReadStream
}

describe('readPipedValue', () => {
  it.each([
    ['value\n', 'value'],
    ['value\r\n', 'value'],
    ['value\n\n', 'value\n'],
    ['value', 'value'],
    ['-----BEGIN KEY-----\nabc\n-----END KEY-----\n', '-----BEGIN KEY-----\nabc\n-----END KEY-----'],
    ['', ''],
    ['\n', ''],
    [' value \t', ' value \t'],
  ])('reads %j as %j', async (input, value) => {
    expect(await readPipedValue(piped(input))).toBe(value)
  })

  it('joins UTF-8 split across chunks', async () => {
    const bytes = Buffer.from('€uro\n')
    expect(await readPipedValue(piped(bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2)))).toBe(
      '€uro',
    )
  })
})

describe('readSecretValue', () => {
  it('takes --value with the one warning, which does not hold the value', async () => {
    const warnings: string[] = []
    const stdin = piped('not read\n')
    expect(
      await readSecretValue({ name: 'A', value: canary, stdin, warn: (line) => warnings.push(line) }),
    ).toBe(canary)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/--value puts the secret on the command line/)
    expect(warnings.join('\n')).not.toContain(canary)
  })

  it('takes an empty --value as given (explicit)', async () => {
    expect(await readSecretValue({ name: 'A', value: '', warn: () => undefined })).toBe('')
  })

  it('reads piped stdin without a warning', async () => {
    const warnings: string[] = []
    expect(
      await readSecretValue({ name: 'A', stdin: piped(`${canary}\n`), warn: (line) => warnings.push(line) }),
    ).toBe(canary)
    expect(warnings).toEqual([])
  })
})

describe('readDevAdminPassword', () => {
  it('prefers the flag (warned), then the environment, else a random one (undefined)', async () => {
    const warnings: string[] = []
    const warn = (line: string) => warnings.push(line)
    expect(
      await readDevAdminPassword({
        flag: canary,
        fromStdin: false,
        env: { VAULT_ADMIN_PASSWORD: 'e' },
        warn,
      }),
    ).toBe(canary)
    expect(warnings).toEqual([
      'Warning: --admin-password puts the secret on the command line, where process listings and shell history show it',
    ])
    expect(await readDevAdminPassword({ fromStdin: false, env: { VAULT_ADMIN_PASSWORD: 'e' }, warn })).toBe(
      'e',
    )
    expect(
      await readDevAdminPassword({ fromStdin: false, env: { VAULT_ADMIN_PASSWORD: '' }, warn }),
    ).toBeUndefined()
  })
})

describe('warnCommandLineSecret', () => {
  it('names the flag', () => {
    const lines: string[] = []
    warnCommandLineSecret('--x', (line) => lines.push(line))
    expect(lines[0]).toMatch(/^Warning: --x /)
  })
})
