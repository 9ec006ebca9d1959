import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { formatSecrets, shellQuote } from '../../../src/export/format.js'
import { writeFileAtomic600 } from '../../../src/export/write-file.js'

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

describe('writeFileAtomic600', () => {
  it('creates the file with mode 600 and leaves no temporary file', async () => {
    const file = join(work, 'out.env')
    await writeFileAtomic600(file, 'A=1\n')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toBe('A=1\n')
    expect(readdirSync(work).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('replaces a world-readable file with a mode-600 one', async () => {
    const file = join(work, 'loose.env')
    writeFileSync(file, 'old', { mode: 0o644 })
    await writeFileAtomic600(file, 'new')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toBe('new')
  })
})
