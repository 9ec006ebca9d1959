import { describe, expect, it } from 'vitest'
import { escapeControls } from '../../../../src/server/audit/audit-text.js'

describe('escapeControls', () => {
  it.each([
    ['ESC and BEL of a title change', '\u001b]0;pwned\u0007', '\\x1b]0;pwned\\x07'],
    ['a newline faking a row', 'id\nFAKE', 'id\\x0aFAKE'],
    ['a C1 CSI', 'a\u009b2Jb', 'a\\x9b2Jb'],
    ['DEL', 'a\u007f', 'a\\x7f'],
    ['a bidi override', 'a\u202eb', 'a\\u202eb'],
    ['a backslash (kept unambiguous)', 'a\\x1b', 'a\\\\x1b'],
    ['plain text', 'vc_0123 café', 'vc_0123 café'],
  ])('escapes %s', (_label, input, expected) => {
    expect(escapeControls(input)).toBe(expected)
  })
})
