/**
 * Compose files nested deep or holding bytes that are not text, generated so the test
 * (deep-and-encoding.test.ts) and the go-yaml oracle (oracle/) read the same bytes.
 * - Nesting: go-yaml's own limit_test.go cases (a megabyte of `[`, of `{`, of `- `), block mappings as
 *   deep as a file of 2 MB goes, both sides of vault's limit (256) and of go-yaml's (10,000), and values
 *   that nest deeper than their text: flow pairs and aliases.
 * - Encoding: each of go-yaml's reader errors (bad UTF-8 octets, overlong forms, surrogates, control
 *   characters, NUL), a file saved as Latin-1, and what must still be read: non-ASCII text and emoji,
 *   a UTF-8 byte order mark, UTF-16 with one.
 */

/** One input: its name (the attack or the boundary it stands for) and its bytes. */
export interface InputCase {
  name: string
  bytes: Buffer
  /** What vault says: 'ok', or the end of its error message. */
  vault: string
  /** The 1-based line vault's error names, when it refuses. */
  line?: number
}

const web = 'services:\n  web:\n    image: nginx\n'
const mebibyte = 1024 * 1024
const tooDeep = 'invalid YAML: exceeded max depth of 256'

/** `x-deep:` holding block mappings `levels` deep (`x-deep` itself is level 1 below the top). */
export function blockMappings(levels: number, under = ''): string {
  const lines = [`${under}x-deep:`]
  let indent = `${under}  `
  for (let level = 1; level < levels; level++) {
    lines.push(`${indent}a:`)
    indent += ' '
  }
  return `${lines.join('\n')}\n${indent}x: 1\n`
}

/** `x-deep:` holding flow sequences `levels` deep. */
function flowSequences(levels: number): string {
  return `x-deep: ${'['.repeat(levels)}${']'.repeat(levels)}\n`
}

/** `x-deep:` holding block sequences `levels` deep, all on one line (`- - - x`). */
function blockSequences(levels: number): string {
  return `x-deep:\n  ${'- '.repeat(levels)}x\n`
}

/** Flow pairs, `[a: [a: ...]]`: each `[` holds a one-pair mapping, two levels of value per bracket. */
function flowPairs(brackets: number): string {
  return `x-deep: ${'[a: '.repeat(brackets)}1${']'.repeat(brackets)}\n`
}

/** `anchors` anchored flow sequences `levels` deep, each holding an alias to the one before. */
function nestedAliases(anchors: number, levels: number): string {
  let text = ''
  for (let index = 0; index < anchors; index++) {
    const inner = index === 0 ? '1' : `*a${index - 1}`
    text += `x-a${index}: &a${index} ${'['.repeat(levels)}${inner}${']'.repeat(levels)}\n`
  }
  return text
}

const text = (name: string, yaml: string, vault: string, line?: number): InputCase => ({
  name,
  bytes: Buffer.from(yaml),
  vault,
  line,
})

/**
 * The nesting cases. Depths count the top-level mapping as level 1, so `x-deep: [[]]` is 3 deep
 * (the top mapping, the outer and the inner sequence).
 */
export function depthCases(): InputCase[] {
  return [
    text('1 MiB of [ (go-yaml limit_test: deeply nested slices)', '['.repeat(mebibyte), tooDeep, 1),
    text(
      '1 MiB of { after x: (go-yaml limit_test: deeply nested maps)',
      `x: ${'{'.repeat(mebibyte)}`,
      tooDeep,
      1,
    ),
    text('1 MiB of - (go-yaml limit_test: deeply nested indents)', '- '.repeat(mebibyte / 2), tooDeep, 1),
    text('2,000 nested block mappings in a service', web + blockMappings(2000, '    '), tooDeep, 259),
    text(
      '1,200 nested block mappings (exit 1 before: a regex compiled at the end of the stack)',
      web + blockMappings(1200),
      tooDeep,
      261,
    ),
    text('10,001 flow sequences (past go-yaml too)', web + flowSequences(10_001), tooDeep, 4),
    text('10,000 flow sequences (go-yaml max_flow_level)', web + flowSequences(10_000), tooDeep, 4),
    text('flow sequences 257 deep', web + flowSequences(256), tooDeep, 4),
    text('flow sequences 256 deep', web + flowSequences(255), 'ok'),
    text('block mappings 257 deep', web + blockMappings(256), tooDeep, 260),
    text('block mappings 256 deep', web + blockMappings(255), 'ok'),
    text('block sequences 257 deep on one line', web + blockSequences(256), tooDeep, 5),
    text('block sequences 256 deep on one line', web + blockSequences(255), 'ok'),
    text('flow pairs 257 deep from 128 brackets', web + flowPairs(128), tooDeep, 4),
    text('flow pairs 255 deep from 127 brackets', web + flowPairs(127), 'ok'),
    text('5 aliases each nesting the last 60 deeper: 301 deep', web + nestedAliases(5, 60), tooDeep, 8),
    text('4 aliases each nesting the last 60 deeper: 241 deep', web + nestedAliases(4, 60), 'ok'),
    text('block mappings 50 deep', web + blockMappings(49), 'ok'),
  ]
}

/** A service whose image is `ngi` + `bytes` + `nx` (line 3). */
function inImage(bytes: number[]): Buffer {
  return Buffer.concat([
    Buffer.from('services:\n  web:\n    image: ngi'),
    Buffer.from(bytes),
    Buffer.from('nx\n'),
  ])
}

/** Valid text beyond ASCII: accented letters, CJK, emoji (4 bytes in UTF-8, a surrogate pair in UTF-16). */
export const nonAsciiCompose =
  'services:\n  web:\n    image: nginx\n    environment:\n      GREETING: "héllo wörld"\n' +
  '      CITY: 東京\n    labels:\n      mood: "🎉 party 🐳"\n'

const control = 'invalid YAML: control characters are not allowed'

/** The encoding cases: go-yaml's reader errors, and text it reads. */
export function encodingCases(): InputCase[] {
  const bytes = (name: string, content: Buffer, vault: string, line?: number) => ({
    name,
    bytes: content,
    vault,
    line,
  })
  return [
    bytes('NUL in a value', inImage([0x00]), `${control} (U+0000)`, 3),
    bytes('NUL in a comment', Buffer.from(`# a\0b\n${web}`), `${control} (U+0000)`, 1),
    bytes('BEL (U+0007)', inImage([0x07]), `${control} (U+0007)`, 3),
    bytes('DEL (U+007F)', inImage([0x7f]), `${control} (U+007F)`, 3),
    bytes('C1 control U+0080', inImage([0xc2, 0x80]), `${control} (U+0080)`, 3),
    bytes('noncharacter U+FFFE', inImage([0xef, 0xbf, 0xbe]), `${control} (U+FFFE)`, 3),
    bytes('byte 0xFF', inImage([0xff]), 'invalid YAML: invalid leading UTF-8 octet', 3),
    bytes('a lone continuation byte 0x80', inImage([0x80]), 'invalid YAML: invalid leading UTF-8 octet', 3),
    bytes('0xC3 then ASCII', inImage([0xc3, 0x28]), 'invalid YAML: invalid trailing UTF-8 octet', 3),
    bytes(
      'a file saved as Latin-1 (café)',
      Buffer.from(
        'services:\n  web:\n    image: nginx\n    environment:\n      NAME: caf\xe9\n      PORT: 80\n',
        'latin1',
      ),
      'invalid YAML: invalid trailing UTF-8 octet',
      5,
    ),
    bytes(
      'a sequence cut off at the end',
      Buffer.concat([Buffer.from('services:\n  web:\n    image: ngi'), Buffer.from([0xe2, 0x82])]),
      'invalid YAML: incomplete UTF-8 octet sequence',
      3,
    ),
    bytes(
      'overlong / (0xC0 0xAF)',
      inImage([0xc0, 0xaf]),
      'invalid YAML: invalid length of a UTF-8 sequence',
      3,
    ),
    bytes(
      'a UTF-16 surrogate in UTF-8 (0xED 0xA0 0x80)',
      inImage([0xed, 0xa0, 0x80]),
      'invalid YAML: invalid Unicode character',
      3,
    ),
    bytes(
      'past U+10FFFF (0xF4 0x90 0x80 0x80)',
      inImage([0xf4, 0x90, 0x80, 0x80]),
      'invalid YAML: invalid Unicode character',
      3,
    ),
    bytes('non-ASCII text and emoji', Buffer.from(nonAsciiCompose), 'ok'),
    bytes(
      'a UTF-8 byte order mark',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(nonAsciiCompose)]),
      'ok',
    ),
    bytes('UTF-16LE with a byte order mark', Buffer.from(`\ufeff${nonAsciiCompose}`, 'utf16le'), 'ok'),
    bytes(
      'UTF-16BE with a byte order mark',
      Buffer.from(`\ufeff${nonAsciiCompose}`, 'utf16le').swap16(),
      'ok',
    ),
    bytes('tabs and CRLF line breaks', Buffer.from('services:\r\n  web:\r\n    image: "a\tb"\r\n'), 'ok'),
  ]
}

/** Every case, in the order of go-yaml-verdicts-deep-and-encoding.jsonl. */
export function inputCases(): InputCase[] {
  return [...depthCases(), ...encodingCases()]
}
