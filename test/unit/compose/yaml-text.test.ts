import { describe, expect, it } from 'vitest'
import { decodeYamlText } from '../../../src/compose/yaml-text.js'

const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))))

describe('decodeYamlText', () => {
  it.each([
    ['ASCII', bytes('a: 1\n'), 'a: 1\n'],
    ['accents, CJK and emoji', bytes('a: héllo 東京 🎉\n'), 'a: héllo 東京 🎉\n'],
    ['tab, CR and LF', bytes('a: "x\ty"\r\n'), 'a: "x\ty"\r\n'],
    ['a UTF-8 byte order mark (kept for the parsers)', bytes([0xef, 0xbb, 0xbf], 'a: 1\n'), '\ufeffa: 1\n'],
    ['UTF-16LE after its mark', Buffer.from('\ufeffa: 🎉\n', 'utf16le'), 'a: 🎉\n'],
    ['UTF-16BE after its mark', Buffer.from('\ufeffa: 🎉\n', 'utf16le').swap16(), 'a: 🎉\n'],
    ['U+0085 (NEL), which YAML allows', bytes('a: x', [0xc2, 0x85], 'y\n'), 'a: x\u0085y\n'],
    ['an empty file', bytes(''), ''],
  ])('%s: read', (_name, input, text) => {
    expect(decodeYamlText(input, 'c.yaml')).toBe(text)
  })

  it.each([
    ['0xFF', bytes('a: 1\nb: ', [0xff], '\n'), 'c.yaml:2: invalid YAML: invalid leading UTF-8 octet'],
    ['a continuation byte first', bytes([0x80]), 'c.yaml:1: invalid YAML: invalid leading UTF-8 octet'],
    [
      '0xF8 (a 5-byte form)',
      bytes([0xf8, 0x88, 0x80, 0x80, 0x80]),
      'c.yaml:1: invalid YAML: invalid leading UTF-8 octet',
    ],
    [
      'a lead then ASCII',
      bytes('a\n\n', [0xe2, 0x28, 0xa1]),
      'c.yaml:3: invalid YAML: invalid trailing UTF-8 octet',
    ],
    [
      'cut off at the end',
      bytes('a: ', [0xf0, 0x9f, 0x8e]),
      'c.yaml:1: invalid YAML: incomplete UTF-8 octet sequence',
    ],
    ['overlong NUL', bytes([0xc0, 0x80]), 'c.yaml:1: invalid YAML: invalid length of a UTF-8 sequence'],
    [
      'overlong 3-byte',
      bytes([0xe0, 0x80, 0xaf]),
      'c.yaml:1: invalid YAML: invalid length of a UTF-8 sequence',
    ],
    ['a surrogate', bytes([0xed, 0xbf, 0xbf]), 'c.yaml:1: invalid YAML: invalid Unicode character'],
    ['past U+10FFFF', bytes([0xf7, 0xbf, 0xbf, 0xbf]), 'c.yaml:1: invalid YAML: invalid Unicode character'],
    ['NUL', bytes('a: 1\nb: x\0y\n'), 'c.yaml:2: invalid YAML: control characters are not allowed (U+0000)'],
    ['ESC', bytes('a: \x1b[31m\n'), 'c.yaml:1: invalid YAML: control characters are not allowed (U+001B)'],
    ['form feed', bytes('\f'), 'c.yaml:1: invalid YAML: control characters are not allowed (U+000C)'],
    [
      'U+009B (C1 CSI)',
      bytes([0xc2, 0x9b]),
      'c.yaml:1: invalid YAML: control characters are not allowed (U+009B)',
    ],
    [
      'U+FFFF',
      bytes([0xef, 0xbf, 0xbf]),
      'c.yaml:1: invalid YAML: control characters are not allowed (U+FFFF)',
    ],
    [
      'NUL in UTF-16',
      Buffer.from('\ufeffa: \0\n', 'utf16le'),
      'c.yaml:1: invalid YAML: control characters are not allowed (U+0000)',
    ],
    [
      'a lone surrogate in UTF-16',
      Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x61, 0x00]),
      'c.yaml: invalid YAML: invalid UTF-16LE text',
    ],
  ])("%s: refused with go-yaml's words", (_name, input, message) => {
    expect(() => decodeYamlText(input, 'c.yaml')).toThrow(message)
  })
})
