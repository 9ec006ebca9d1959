/**
 * Line spans of a dotenv file's entries and the rewrite of `secrets import --move`. The oracle is
 * compose's own dotenv reader (src/compose/env-file.ts, checked against compose-go's cases in
 * env-file.upstream.test.ts): after the rewrite, a moved entry reads as a bare name (no value of its own)
 * and every other entry keeps the value it had, multi-line quoted values included.
 */
import { describe, expect, it } from 'vitest'
import { readEnvFile } from '../../../src/compose/env-file.js'
import { dotenvSpans, moveLinesOut } from '../../../src/stack/dotenv-lines.js'

const read = (text: string) => readEnvFile(text, () => undefined)

const text = [
  '# settings',
  'PLAIN=1',
  'DB_PASSWORD="line one',
  'line two',
  '# not a comment inside quotes',
  'line four"',
  'export TOKEN=abc # trailing comment',
  'BARE',
  "SINGLE='a",
  "b'",
  'LAST: value',
  '',
].join('\n')

describe('dotenvSpans', () => {
  it('gives each entry its first and last line, a quoted multi-line value being one span', () => {
    expect(dotenvSpans(text)).toEqual([
      { key: 'PLAIN', first: 2, last: 2, bare: false },
      { key: 'DB_PASSWORD', first: 3, last: 6, bare: false },
      { key: 'TOKEN', first: 7, last: 7, bare: false },
      { key: 'BARE', first: 8, last: 8, bare: true },
      { key: 'SINGLE', first: 9, last: 10, bare: false },
      { key: 'LAST', first: 11, last: 11, bare: false },
    ])
  })

  it('reads CRLF files by the same lines', () => {
    expect(dotenvSpans(text.replaceAll('\n', '\r\n'))).toEqual(dotenvSpans(text))
  })
})

describe('moveLinesOut', () => {
  it('leaves a bare name for each moved entry and every other value as it was', () => {
    const before = read(text).values
    const after = moveLinesOut(text, ['DB_PASSWORD', 'SINGLE', 'BARE'], 'in the vault', '.env')
    const read2 = read(after)
    expect(read2.values.PLAIN).toBe(before.PLAIN)
    expect(read2.values.TOKEN).toBe(before.TOKEN)
    expect(read2.values.LAST).toBe(before.LAST)
    for (const key of ['DB_PASSWORD', 'SINGLE']) {
      expect(read2.values[key]).toBeUndefined()
      expect(read2.entries.find((entry) => entry.key === key)?.references).toHaveLength(1)
    }
    expect(after).not.toContain('line two')
    expect(after).toContain('# DB_PASSWORD: in the vault\nDB_PASSWORD\n')
    expect(after).toContain('\nBARE\n')
    expect(after).not.toContain('# BARE:') // a bare name has no value to move
  })

  it('moves nothing it is not asked to, and nothing from a key that only looks alike', () => {
    expect(moveLinesOut(text, [], 'x')).toBe(text)
    expect(moveLinesOut(text, ['DB_PASS', 'constructor', '__proto__'], 'x')).toBe(text)
  })
})
