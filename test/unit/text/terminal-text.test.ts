import { describe, expect, it } from 'vitest'
import { formatColumns } from '../../../src/text/columns.js'
import { formatErrorReport } from '../../../src/text/error-report.js'
import { escapeField, escapeJsonText, escapeLines, fields } from '../../../src/text/terminal-text.js'

describe('terminal-safe text', () => {
  it.each([
    ['ESC (clear screen)', '\u001b[2J', '\\x1b[2J'],
    ['OSC title ended by BEL', '\u001b]0;t\u0007', '\\x1b]0;t\\x07'],
    ['CR (overwrite the line)', 'a\rb', 'a\\rb'],
    ['LF inside a field (forge a row)', 'a\nb', 'a\\nb'],
    ['C1 CSI', '\u009b31m', '\\x9b31m'],
    ['DEL and backspace', '\u007f\u0008', '\\x7f\\x08'],
    ['bidi override', '\u202eevil', '\\u202eevil'],
    ['line separator', 'a\u2028b', 'a\\u2028b'],
    ['plain text, backslashes and non-ASCII unchanged', 'C:\\x ☃ é', 'C:\\x ☃ é'],
  ])('a field: %s', (_what, input, expected) => {
    expect(escapeField(input)).toBe(expected)
  })

  it('a block keeps its newlines and tabs, escapes the rest', () => {
    expect(escapeLines('a\tb\nc\u001b[Kd\r\n')).toBe('a\tb\nc\\x1b[Kd\\r\n')
  })

  it('JSON keeps its value and shows C1 and bidi as \\u escapes', () => {
    const value = { name: 'x\u009b1m\u202e\u007f' }
    const text = escapeJsonText(JSON.stringify(value))
    expect(text).toBe('{"name":"x\\u009b1m\\u202e\\u007f"}')
    expect(JSON.parse(text)).toEqual(value)
  })

  it('fields`` escapes only the interpolated values', () => {
    expect(fields`as ${'x\ny'} (project ${'p'})\n`).toBe('as x\\ny (project p)\n')
  })

  it('tables and error reports escape every cell and line', () => {
    expect(formatColumns([['a\nFORGED', 'b']], ['H\u001b', 'I'])).toBe('H\\x1b      I\na\\nFORGED  b')
    expect(
      formatErrorReport({ name: 'E', code: 'ERR_X', exitCode: 5, message: 'm\u001b[2J', hint: 'h\rX' }),
    ).toBe('Error: m\\x1b[2J\nHint: h\\rX')
  })
})
