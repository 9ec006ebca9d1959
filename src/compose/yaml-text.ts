/**
 * The bytes of a compose file as YAML text, refused as go-yaml (the reader compose-go decodes compose
 * files with) refuses them: bytes that are not UTF-8 (or UTF-16 after its byte order mark) and the
 * characters YAML forbids in a stream, NUL and the other control characters but tab and line breaks
 * (`yaml_parser_update_buffer` in yaml.v3's readerc.go, whose messages these are). Read as UTF-8
 * unchecked, a stray byte became U+FFFD and a NUL passed into the rendered file.
 */
import { isUtf8 } from 'node:buffer'
import { ComposeInputError } from './errors.js'

/** What YAML 1.2 does not allow in a stream (c-printable's complement; lone surrogates cannot be decoded). */
// eslint-disable-next-line no-control-regex -- finding control characters is this pattern's job
const forbiddenCharacter = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]/

const hint = 'a compose file is UTF-8 text; check its encoding or what was written into it'

function refusal(file: string, line: number | undefined, problem: string): ComposeInputError {
  return new ComposeInputError(file, line, `invalid YAML: ${problem}`, hint)
}

/** The 1-based line of byte `offset`. */
function lineOfByte(bytes: Buffer, offset: number): number {
  let line = 1
  for (let index = bytes.indexOf(10); index !== -1 && index < offset; index = bytes.indexOf(10, index + 1))
    line++
  return line
}

/** The width of the UTF-8 sequence led by `octet`, as go-yaml reads it (0: not a leading octet). */
function sequenceWidth(octet: number): number {
  if ((octet & 0x80) === 0) return 1
  if ((octet & 0xe0) === 0xc0) return 2
  if ((octet & 0xf0) === 0xe0) return 3
  if ((octet & 0xf8) === 0xf0) return 4
  return 0
}

/** go-yaml's problem with the sequence at `offset`, or undefined when it is a valid character. */
function sequenceProblem(bytes: Buffer, offset: number): string | undefined {
  const width = sequenceWidth(bytes[offset]!)
  if (width === 0) return 'invalid leading UTF-8 octet'
  if (offset + width > bytes.length) return 'incomplete UTF-8 octet sequence'
  let value = width === 1 ? bytes[offset]! : bytes[offset]! & (0xff >> (width + 1))
  for (let index = 1; index < width; index++) {
    const octet = bytes[offset + index]!
    if ((octet & 0xc0) !== 0x80) return 'invalid trailing UTF-8 octet'
    value = (value << 6) + (octet & 0x3f)
  }
  const shortest = [0, 0, 0x80, 0x800, 0x10000][width]!
  if (value < shortest) return 'invalid length of a UTF-8 sequence'
  if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) return 'invalid Unicode character'
  return undefined
}

/** The first sequence of `bytes` that is not UTF-8, with go-yaml's word for it and its line. */
function firstInvalidSequence(bytes: Buffer): { problem: string; line: number } {
  for (let offset = 0; offset < bytes.length; offset += Math.max(1, sequenceWidth(bytes[offset]!))) {
    const problem = sequenceProblem(bytes, offset)
    if (problem !== undefined) return { problem, line: lineOfByte(bytes, offset) }
  }
  return { problem: 'invalid UTF-8', line: 1 }
}

function decode(bytes: Buffer, file: string): string {
  const utf16 =
    bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'utf-16le'
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'utf-16be'
        : undefined
  if (utf16 !== undefined) {
    try {
      return new TextDecoder(utf16, { fatal: true }).decode(bytes)
    } catch {
      throw refusal(file, undefined, `invalid ${utf16.toUpperCase()} text`)
    }
  }
  if (isUtf8(bytes)) return bytes.toString('utf8')
  const { problem, line } = firstInvalidSequence(bytes)
  throw refusal(file, line, problem)
}

/**
 * The text of compose file `file` from its `bytes`: UTF-8, or UTF-16 after a byte order mark, as
 * go-yaml reads them. Anything else, or a control character (NUL included), is a ComposeInputError
 * naming the line and go-yaml's problem ("invalid leading UTF-8 octet", "control characters are not
 * allowed").
 */
export function decodeYamlText(bytes: Buffer, file: string): string {
  const text = decode(bytes, file)
  const forbidden = forbiddenCharacter.exec(text)
  if (forbidden) {
    const code = forbidden[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')
    const line = text.slice(0, forbidden.index).split('\n').length
    throw refusal(file, line, `control characters are not allowed (U+${code})`)
  }
  return text
}
