import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { formatSecrets, shellQuote } from '../../../src/export/format.js'

const hostile = {
  A: `it's "x" $HOME \`id\` \\ \\\\`,
  B: 'line1\nline2\n',
  C: '  spaced  ',
  D: 'héllo ☃',
  E: '',
  F: 'yes',
  G: '0123',
}
const work = mkdtempSync(join(tmpdir(), 'vault-format-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('formatSecrets', () => {
  it('json parses back to the same map', async () => {
    expect(JSON.parse((await formatSecrets(hostile, 'json')).text)).toEqual(hostile)
  })

  it('yaml parses back to the same map (strings stay strings)', async () => {
    expect(parseYaml((await formatSecrets(hostile, 'yaml')).text)).toEqual(hostile)
  })

  it('shell is read back exactly by sh', async () => {
    const file = join(work, 'exports.sh')
    writeFileSync(file, (await formatSecrets(hostile, 'shell')).text)
    const script = `. "$1"; for n in A B C D E F G; do eval "printf '%s\\0' \\"\\$$n\\""; done`
    const values = execFileSync('sh', ['-c', script, 'sh', file], { env: {} }).toString('utf8').split('\0')
    expect(Object.fromEntries(Object.keys(hostile).map((name, i) => [name, values[i]]))).toEqual(hostile)
  })

  it.each([
    ['plain', "'plain'"],
    ["it's", `'it'\\''s'`],
  ])('shellQuote(%j) = %s', (value, expected) => {
    expect(shellQuote(value)).toBe(expected)
  })

  it('an empty export is valid in every format', async () => {
    expect((await formatSecrets({}, 'dotenv')).text).toBe('')
    expect(JSON.parse((await formatSecrets({}, 'json')).text)).toEqual({})
    expect(parseYaml((await formatSecrets({}, 'yaml')).text)).toEqual({})
  })
})
