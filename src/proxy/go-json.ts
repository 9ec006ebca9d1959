/**
 * Reads a JSON body the way dockerd's Go `encoding/json` decodes it into its structs (pure), for the
 * fields a shape names: JSON.parse parses (no tokenizer of ours), then the parsed value is walked
 * against the shape. What Go does and this reproduces, proven against Go itself by
 * test/unit/proxy/go-json.differential.test.ts:
 * - an object key matches a struct field case-insensitively, Go's way: ASCII letters fold, and so do the
 *   two non-ASCII runes whose fold set holds an ASCII letter, `ſ` (U+017F, s) and `K` (U+212A, k);
 *   `\u` escapes are read before matching (`"Privil\u0065ged"` is Privileged);
 * - keys that match the same field are applied in document order: a scalar takes the last, a struct is
 *   decoded into the one before (its fields merge); `null` clears a pointer, slice or map and leaves a
 *   scalar or an embedded struct as it was; a value of the wrong type is an error (dockerd then fails
 *   the request), except that a StrSlice (CapAdd) takes a string as a one-element list;
 * - unknown keys are ignored.
 * Refused as undecidable (DecodeError, so the guard fails closed), because JSON.parse's object cannot say
 * what Go would hold: a key written twice exactly in one object (JSON.parse keeps the last value at the
 * first key's place, so `{"a":1,"A":2,"a":3}`, which Go reads as 3, looks like `{a:3, A:2}`), and a
 * slice or map field given twice under case variants (Go decodes the second into the first's storage,
 * keeping stale elements). Without exact duplicates JSON.parse keeps keys in document order (integer-like
 * keys aside, which name no field), which is what makes "the last case variant wins" decidable.
 */

import { VaultError } from '../errors.js'

/** The Go shape of a value: what the struct field's type accepts. */
export type GoShape =
  | { kind: 'bool' }
  | { kind: 'string' }
  /** Docker's strslice.StrSlice: a list of strings, or one string. */
  | { kind: 'strslice' }
  | { kind: 'slice'; of: GoShape }
  | { kind: 'map'; of: GoShape }
  /** A struct (`pointer`: behind a pointer, so `null` clears it). Fields by their Go names. */
  | { kind: 'struct'; pointer: boolean; fields: Readonly<Record<string, GoShape>> }

/** A decoded value: Go's zero values are false, '' and null (nil pointers, slices, maps). */
export type GoValue = boolean | string | null | GoValue[] | { [field: string]: GoValue }
export type GoStruct = { [field: string]: GoValue }

/** A body Go would decode differently from what can be known here, or not at all. */
export class DecodeError extends VaultError {
  override name = 'DecodeError'
  override readonly code: string = 'ERR_BODY_DECODE'
  constructor(
    /** The field (`HostConfig.Privileged`), or `body` for the whole. */
    readonly field: string,
    reason: string,
  ) {
    super(reason)
  }
}

export const bool: GoShape = { kind: 'bool' }
export const string: GoShape = { kind: 'string' }
export const strslice: GoShape = { kind: 'strslice' }
export const sliceOf = (of: GoShape): GoShape => ({ kind: 'slice', of })
export const mapOf = (of: GoShape): GoShape => ({ kind: 'map', of })
export const struct = (fields: Record<string, GoShape>, pointer = true): GoShape => ({
  kind: 'struct',
  pointer,
  fields,
})

/** A key folded as Go's encoding/json matches it to an ASCII field name; undefined when it cannot match. */
export function foldKey(key: string): string | undefined {
  let folded = ''
  for (const char of key) {
    if (char === '\u017f') folded += 's'
    else if (char === '\u212a') folded += 'k'
    else if (char.charCodeAt(0) < 0x80) folded += char.toLowerCase()
    else return undefined
  }
  return folded
}

/** Folded names of each struct shape's fields, and its fields in order, computed once per shape. */
interface StructIndex {
  byFold: Map<string, string>
  fields: [string, GoShape][]
  /** Keys already looked up (bodies repeat the same few hundred keys), bounded. */
  seen: Map<string, string | undefined>
}
const structIndexes = new WeakMap<object, StructIndex>()

function indexOf(shape: Extract<GoShape, { kind: 'struct' }>): StructIndex {
  let index = structIndexes.get(shape)
  if (!index) {
    const fields = Object.entries(shape.fields)
    index = { byFold: new Map(fields.map(([name]) => [name.toLowerCase(), name])), fields, seen: new Map() }
    structIndexes.set(shape, index)
  }
  return index
}

/** Printable ASCII: lower-casing folds it exactly as Go does (the common case, no rune walk). */
const printableAscii = /^[\x20-\x7e]*$/

const maxSeenKeys = 4096

function fieldOf(shape: Extract<GoShape, { kind: 'struct' }>, key: string): string | undefined {
  const { byFold, seen } = indexOf(shape)
  if (seen.has(key)) return seen.get(key)
  const folded = printableAscii.test(key) ? key.toLowerCase() : foldKey(key)
  const name = folded === undefined ? undefined : byFold.get(folded)
  if (seen.size < maxSeenKeys && key.length <= 64) seen.set(key, name)
  return name
}

/** The zero value of a shape (an embedded, non-pointer struct has its fields at their zero values). */
function zero(shape: GoShape): GoValue {
  if (shape.kind === 'bool') return false
  if (shape.kind === 'string') return ''
  if (shape.kind === 'struct' && !shape.pointer) return zeroStruct(shape)
  return null
}

function zeroStruct(shape: Extract<GoShape, { kind: 'struct' }>): GoStruct {
  const value: GoStruct = {}
  for (const [name, field] of indexOf(shape).fields) value[name] = zero(field)
  return value
}

const typeNames: Record<GoShape['kind'], string> = {
  bool: 'a boolean',
  string: 'a string',
  strslice: 'a string or a list of strings',
  slice: 'a list',
  map: 'an object',
  struct: 'an object',
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** A string as Go unquotes it: each lone surrogate (`"\ud800"`) becomes U+FFFD. */
const wellFormed = (text: string) => text.replace(loneSurrogate, '\ufffd')

function isObject(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json)
}

/** Decodes `json` into `current` (the field's value so far) as Go would; `path` names it in errors. */
function decodeValue(current: GoValue, json: unknown, shape: GoShape, path: string): GoValue {
  const wrongType = () => new DecodeError(path, `${path} is not ${typeNames[shape.kind]}`)
  if (json === null) {
    if (shape.kind === 'bool' || shape.kind === 'string') return current
    if (shape.kind === 'struct' && !shape.pointer) return current
    return null
  }
  switch (shape.kind) {
    case 'bool':
      if (typeof json !== 'boolean') throw wrongType()
      return json
    case 'string':
      if (typeof json !== 'string') throw wrongType()
      return wellFormed(json)
    case 'strslice':
      if (typeof json === 'string') return [wellFormed(json)]
      if (!Array.isArray(json) || !json.every((item) => item === null || typeof item === 'string'))
        throw wrongType()
      return json.map((item) => (item === null ? '' : wellFormed(item as string)))
    case 'slice':
      if (!Array.isArray(json)) throw wrongType()
      return json.map((item, index) => decodeValue(zero(shape.of), item, shape.of, `${path}[${index}]`))
    case 'map': {
      if (!isObject(json)) throw wrongType()
      const entries: GoStruct = {}
      // defined, not assigned: a `__proto__` key is a key like any other (assigning would set the prototype)
      for (const [key, value] of Object.entries(json))
        Object.defineProperty(entries, wellFormed(key), {
          value: decodeValue(zero(shape.of), value, shape.of, `${path}.${key}`),
          enumerable: true,
          writable: true,
          configurable: true,
        })
      return entries
    }
    case 'struct': {
      if (!isObject(json)) throw wrongType()
      const target = isObject(current) ? (current as GoStruct) : zeroStruct(shape)
      decodeFields(target, json, shape, path)
      return target
    }
  }
}

/** Fields given earlier in the same struct value (across merges), for the slice and map rule. */
const givenFields = new WeakMap<GoStruct, Set<string>>()

function decodeFields(
  target: GoStruct,
  json: Record<string, unknown>,
  shape: Extract<GoShape, { kind: 'struct' }>,
  path: string,
): void {
  let given = givenFields.get(target)
  if (!given) givenFields.set(target, (given = new Set()))
  for (const key of Object.keys(json)) {
    const name = fieldOf(shape, key)
    if (name === undefined) continue
    const field = shape.fields[name]!
    const fieldPath = path === '' ? name : `${path}.${name}`
    if (given.has(name) && field.kind !== 'bool' && field.kind !== 'string' && field.kind !== 'struct')
      throw new DecodeError(fieldPath, `${fieldPath} is given twice (keys differing in case)`)
    given.add(name)
    target[name] = decodeValue(target[name]!, json[key], field, fieldPath)
  }
}

/** The string tokens of a JSON text. */
const stringToken = /"(?:[^"\\]|\\[\s\S])*"/g

/** Properties of every object in a parsed value. */
function propertyCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  let count = 0
  if (Array.isArray(value)) {
    for (const item of value) count += propertyCount(item)
    return count
  }
  for (const key in value) count += 1 + propertyCount((value as Record<string, unknown>)[key])
  return count
}

/**
 * True when some object of the text has a key written twice exactly. On text JSON.parse accepted,
 * every `"` outside a string opens one, so the global match visits exactly the string tokens; with them
 * removed, every `:` left separates one key from its value. Each object of the parsed value keeps one
 * property per distinct key: fewer properties than colons means a key was repeated.
 */
function hasRepeatedKey(text: string, parsed: unknown): boolean {
  const structure = text.replace(stringToken, '')
  let keys = 0
  for (let at = structure.indexOf(':'); at !== -1; at = structure.indexOf(':', at + 1)) keys++
  return keys !== propertyCount(parsed)
}

/**
 * Decodes a JSON body into the fields of `shape` (a struct) as dockerd would; throws DecodeError for a
 * body that is not JSON, whose top level is not an object (or null), that repeats a key exactly in one
 * object, or that gives a guarded field a value of the wrong type or a list or map twice.
 */
export function decodeGoJson(text: string, shape: Extract<GoShape, { kind: 'struct' }>): GoStruct {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new DecodeError('body', 'the body is not valid JSON')
  }
  if (parsed !== null && !isObject(parsed)) throw new DecodeError('body', 'the body is not a JSON object')
  if (hasRepeatedKey(text, parsed))
    throw new DecodeError('body', 'the body repeats a key in one object (the engine would merge them)')
  const view = zeroStruct(shape)
  if (parsed !== null) decodeFields(view, parsed, shape, '')
  return view
}
