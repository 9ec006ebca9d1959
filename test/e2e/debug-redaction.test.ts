/**
 * Issue 14, item 10: `DEBUG=*` makes oclif print the command line; a secret passed as a flag value must
 * not be in it. Canary values through the built CLI, in both flag spellings and with characters that
 * util.inspect escapes; the debug output must be there (so the test can fail) and hold no canary.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { createTempHome } from '../helpers/temp-home.js'

const home = createTempHome()
afterAll(() => home.cleanup())

describe('DEBUG=* never prints a secret given as a flag value', () => {
  it.each([
    [
      'secrets set --value X',
      ['secrets', 'set', 'A', '--env', 'dev', '--value', 'CANARY-dbg-1'],
      'CANARY-dbg-1',
    ],
    [
      'secrets set --value=X',
      ['secrets', 'set', 'A', '--env', 'dev', '--value=CANARY-dbg-2'],
      'CANARY-dbg-2',
    ],
    [
      'a value util.inspect escapes',
      ['secrets', 'set', 'A', '--env', 'dev', '--value', `it's "CANARY-dbg-3"\n`],
      'CANARY-dbg-3',
    ],
    [
      '--encryption-key and a --db-url password',
      [
        'audit',
        'list',
        '--db-url',
        'postgres://u:CANARY-dbg-4@127.0.0.1:1/v',
        '--encryption-key',
        'CANARY-dbg-5',
      ],
      'CANARY-dbg-',
    ],
  ])('%s', async (_case, args, canary) => {
    const result = await runCli(args, { env: { ...home.env, DEBUG: '*' }, cwd: home.dir, timeout: 30_000 })
    expect(result.stderr).toContain('oclif:config runCommand')
    expect(result.stdout + result.stderr).not.toContain(canary)
    expect(result.stderr).toContain('***')
  })
})
