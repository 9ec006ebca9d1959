/**
 * A word shellWord gives is one argument when pasted into a real POSIX shell: `sh` prints back the
 * value itself, whatever quotes, semicolons, dollars or newlines it holds, and runs nothing.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { shellWord } from '../../../src/text/shell-word.js'

/** What `sh` receives as its arguments for a command line ending in `word`, one JSON array. */
function argumentsOf(word: string): string[] {
  const out = execFileSync('/bin/sh', ['-c', `for a in ${word}; do printf '%s\\0' "$a"; done`], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' },
  })
  return out.split('\0').slice(0, -1)
}

describe('shellWord', () => {
  it.each(['/srv/stack/.env', 'secrets/db.txt', 'user@host:dir', 'a,b=c+d%'])(
    'leaves a plain path as it is: %s',
    (value) => {
      expect(shellWord(value)).toBe(value)
      expect(argumentsOf(shellWord(value))).toEqual([value])
    },
  )

  it.each([
    'x;curl example.invalid | sh;',
    "it's",
    "''",
    '$HOME',
    '`id`',
    '$(id)',
    'two words',
    'line\nbreak',
    '*',
    'a\\b',
    '',
  ])('quotes %j into one argument that is the value', (value) => {
    const word = shellWord(value)
    expect(word).not.toBe(value)
    expect(argumentsOf(word)).toEqual([value])
  })
})
