/**
 * What `vault scan` looks for: each secret value as written and in the encodings tooling puts it in.
 * A value under 8 characters is not searched (too many chance matches); the count is reported, never
 * the value. Base64 (standard and URL-safe) is matched at all three offsets a value can have inside a
 * larger base64 stream (its byte offset mod 3), without the characters that also hold bits of the
 * bytes around it: so the value encoded alone, with or without padding, and inside a longer encoded
 * blob are all found. URL encoding covers encodeURIComponent, the strict RFC 3986 set and lower-case
 * hex; JSON covers JSON.stringify's escaping and the ASCII-only form (\uXXXX). Patterns equal to
 * another one (an alphanumeric value's URL form is the value) are kept once, under the plainest name.
 */

/** How a value was written where it was found. */
export type Encoding = 'plain' | 'base64' | 'base64url' | 'url' | 'json'

/** One value of one secret version. */
export interface SecretValue {
  name: string
  version: number
  /** Whether this version is the secret's current one. */
  current: boolean
  value: string
}

/** What a pattern stands for: every (secret version, encoding) whose text it is. */
export interface PatternOwner {
  name: string
  version: number
  current: boolean
  encoding: Encoding
}

export interface PatternSet {
  /** The byte strings searched for; `owners[i]` says whose `patterns[i]` is. */
  patterns: Buffer[]
  owners: PatternOwner[][]
  /** Distinct values searched. */
  values: number
  /** Distinct values not searched because they are shorter than minimumScannedLength. */
  tooShort: number
}

/** Values shorter than this are not searched. */
export const minimumScannedLength = 8

/** The texts of `value` in each encoding (plain first), each once. */
export function encodingsOf(value: string): Array<{ encoding: Encoding; text: Buffer }> {
  const bytes = Buffer.from(value, 'utf8')
  const seen = new Set<string>()
  const out: Array<{ encoding: Encoding; text: Buffer }> = []
  const add = (encoding: Encoding, text: Buffer) => {
    const key = text.toString('latin1')
    if (text.length < minimumScannedLength || seen.has(key)) return
    seen.add(key)
    out.push({ encoding, text })
  }
  add('plain', bytes)
  for (const offset of [0, 1, 2]) {
    const core = base64Core(bytes, offset)
    add('base64', Buffer.from(core, 'latin1'))
    add('base64url', Buffer.from(core.replaceAll('+', '-').replaceAll('/', '_'), 'latin1'))
  }
  const component = encodeURIComponent(value)
  const strict = component.replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
  for (const text of [component, strict, lowerHex(component), lowerHex(strict)])
    add('url', Buffer.from(text, 'latin1'))
  const json = JSON.stringify(value).slice(1, -1)
  add('json', Buffer.from(json, 'utf8'))
  add('json', Buffer.from(asciiJson(json), 'latin1'))
  add('json', Buffer.from(json.replaceAll('/', '\\/'), 'utf8'))
  return out
}

/** Builds the pattern set of every value (values under 8 characters are counted, not searched). */
export function buildPatternSet(values: readonly SecretValue[]): PatternSet {
  const index = new Map<string, number>()
  const patterns: Buffer[] = []
  const owners: PatternOwner[][] = []
  const distinct = new Set<string>()
  const short = new Set<string>()
  for (const entry of values) {
    if (entry.value.length < minimumScannedLength) {
      short.add(entry.value)
      continue
    }
    distinct.add(entry.value)
    for (const { encoding, text } of encodingsOf(entry.value)) {
      const key = text.toString('latin1')
      let at = index.get(key)
      if (at === undefined) {
        at = patterns.length
        index.set(key, at)
        patterns.push(text)
        owners.push([])
      }
      owners[at]!.push({ name: entry.name, version: entry.version, current: entry.current, encoding })
    }
  }
  for (const value of distinct) short.delete(value)
  return { patterns, owners, values: distinct.size, tooShort: short.size }
}

/**
 * The base64 characters that depend only on `bytes` when they start at `offset` (mod 3) inside a
 * longer stream: the leading characters that share bits with the bytes before, and the trailing
 * one that shares bits with the bytes after, are dropped, and so is padding.
 */
function base64Core(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
    .toString('base64')
    .replace(/=+$/, '')
  const lead = [0, 2, 3][offset]!
  const trail = (offset + bytes.length) % 3 === 0 ? 0 : 1
  return encoded.slice(lead, encoded.length - trail)
}

function lowerHex(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())
}

function asciiJson(json: string): string {
  return json.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
