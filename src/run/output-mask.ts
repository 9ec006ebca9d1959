/**
 * Masking of secret values in a child's output stream: every occurrence of a value (as UTF-8 bytes) is
 * replaced with `********`, including occurrences split across chunks.
 *
 * Guarantee: for any chunking of a byte stream, the concatenated output equals masking the whole
 * stream at once with the leftmost-longest rule (scan left to right; at the first position where some
 * value starts, replace the longest value starting there; continue after it). At most the longest
 * value's length minus one bytes are held back between chunks, and only while they could still begin
 * a value.
 *
 * Matching is Wu-Manber: a shift table over 3-byte blocks skips, at each step, every start position
 * where no value can begin (for typical 16-64 character secrets, tens of bytes per lookup); the
 * positions it cannot rule out are checked by walking a byte trie of the values, which also picks the
 * longest. Cost is linear in practice; output built to defeat the shift table (long runs of a value's
 * own prefix) costs up to one trie walk per byte.
 */

/** What a masked value is replaced with. */
export const maskText = '********'

/** Values shorter than this are not masked (they would mask ordinary words and digits). */
export const minimumMaskedLength = 4

const maskBytes = Buffer.from(maskText)
const blockSize = 3
const shiftTableBits = 18
const shiftTableSize = 1 << shiftTableBits

/** The matcher of one set of values. */
interface Matcher {
  /** Trie edges of each node, byte -> child (the root, node 0, is never a child). */
  trie: (Map<number, number> | undefined)[]
  /** Length of the value ending at a node, 0 when none does. */
  valueLength: Int32Array
  /** 1 when the trie continues from the node. */
  hasChild: Uint8Array
  /** How far the window may move for the hash of the block that ends it. */
  shift: Uint8Array
  /** The shortest value's length: the window size. */
  window: number
}

/** The values that will be masked (unique, at least 4 characters) and how many were too short. */
export function maskableValues(values: Iterable<string>): { masked: string[]; tooShort: number } {
  const unique = [...new Set(values)].filter((value) => value.length > 0)
  const masked = unique.filter((value) => value.length >= minimumMaskedLength)
  return { masked, tooShort: unique.length - masked.length }
}

function blockHash(b0: number, b1: number, b2: number): number {
  return Math.imul((b0 << 16) | (b1 << 8) | b2, 0x9e3779b1) >>> (32 - shiftTableBits)
}

function buildMatcher(patterns: Buffer[]): Matcher {
  const capacity = patterns.reduce((sum, pattern) => sum + pattern.length, 1)
  const trie: (Map<number, number> | undefined)[] = [undefined]
  const valueLength = new Int32Array(capacity)
  const hasChild = new Uint8Array(capacity)
  let nodes = 1
  for (const pattern of patterns) {
    let node = 0
    for (const byte of pattern) {
      let next = trie[node]?.get(byte)
      if (next === undefined) {
        next = nodes++
        trie.push(undefined)
        ;(trie[node] ??= new Map()).set(byte, next)
        hasChild[node] = 1
      }
      node = next
    }
    valueLength[node] = pattern.length
  }
  const window = Math.min(255, Math.min(...patterns.map((pattern) => pattern.length)))
  const shift = new Uint8Array(shiftTableSize).fill(window - blockSize + 1)
  for (const pattern of patterns) {
    for (let end = blockSize - 1; end < window; end++) {
      const hash = blockHash(pattern[end - 2]!, pattern[end - 1]!, pattern[end]!)
      shift[hash] = Math.min(shift[hash]!, window - 1 - end)
    }
  }
  return { trie, valueLength, hasChild, shift, window }
}

const matchers = new WeakMap<readonly string[], Matcher | undefined>()

function matcherFor(values: readonly string[]): Matcher | undefined {
  if (!matchers.has(values)) {
    const patterns = maskableValues(values).masked.map((value) => Buffer.from(value, 'utf8'))
    matchers.set(values, patterns.length > 0 ? buildMatcher(patterns) : undefined)
  }
  return matchers.get(values)
}

/** The outcome of the trie walk from one position. */
type WalkResult = { kind: 'match'; length: number } | { kind: 'none' } | { kind: 'undecided' }

/** The longest value starting at `start`, or undecided when more bytes could make a longer one. */
function walkTrie(matcher: Matcher, buffer: Buffer, start: number, final: boolean): WalkResult {
  const { trie, valueLength, hasChild } = matcher
  let node = 0
  let longest = 0
  for (let index = start; ; index++) {
    if (valueLength[node]! > 0) longest = valueLength[node]!
    if (!hasChild[node]) break
    if (index >= buffer.length) {
      if (!final) return { kind: 'undecided' }
      break
    }
    const next = trie[node]!.get(buffer[index]!)
    if (next === undefined) break
    node = next
  }
  return longest > 0 ? { kind: 'match', length: longest } : { kind: 'none' }
}

/**
 * A streaming masker for one output stream. `push` returns the bytes that are final; `end` returns
 * the rest. The same instance must not be shared by two streams.
 */
export class OutputMasker {
  private readonly matcher: Matcher | undefined
  private carry: Buffer = Buffer.alloc(0)

  /** `values` may be shared by several maskers (stdout and stderr): the matcher is built once. */
  constructor(values: readonly string[]) {
    this.matcher = matcherFor(values)
  }

  /** Masks a chunk; bytes that could still begin a value are held back for the next call. */
  push(chunk: Buffer): Buffer {
    if (!this.matcher) return chunk
    const buffer = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk
    return this.scan(this.matcher, buffer, false)
  }

  /** Masks and returns whatever is held back; call once at the end of the stream. */
  end(): Buffer {
    if (!this.matcher) return Buffer.alloc(0)
    return this.scan(this.matcher, this.carry, true)
  }

  /**
   * Returns the held-back bytes that can no longer begin a value, keeping only a tail that still
   * could (for output that pauses: a log line is shown without waiting for the next chunk).
   */
  release(): Buffer {
    return this.releaseHeld('keep')
  }

  /**
   * Like `end`, for a stream cut short (the rest will never be read): a tail that could be the start
   * of a value is masked too, so no part of a value is shown.
   */
  cut(): Buffer {
    return this.releaseHeld('mask')
  }

  private releaseHeld(undecidedTail: 'keep' | 'mask'): Buffer {
    if (!this.matcher) return Buffer.alloc(0)
    const held = this.carry
    this.carry = Buffer.alloc(0)
    const pieces: Buffer[] = []
    let emitted = 0
    for (let start = 0; start < held.length;) {
      const walk = walkTrie(this.matcher, held, start, false)
      if (walk.kind === 'none') {
        start++
        continue
      }
      pieces.push(held.subarray(emitted, start))
      if (walk.kind === 'undecided' && undecidedTail === 'keep') {
        this.carry = Buffer.from(held.subarray(start))
        emitted = held.length
        break
      }
      pieces.push(maskBytes)
      emitted = walk.kind === 'match' ? start + walk.length : held.length
      start = emitted
    }
    pieces.push(held.subarray(emitted))
    return Buffer.concat(pieces)
  }

  private scan(matcher: Matcher, buffer: Buffer, final: boolean): Buffer {
    const { shift, window } = matcher
    const pieces: Buffer[] = []
    const length = buffer.length
    let emitted = 0
    let last = window - 1
    for (;;) {
      while (last < length) {
        const step = shift[blockHash(buffer[last - 2]!, buffer[last - 1]!, buffer[last]!)]!
        if (step === 0) break
        last += step
      }
      const start = last - window + 1
      if (last >= length) {
        const held = final ? length : Math.min(start, length)
        pieces.push(buffer.subarray(emitted, held))
        this.carry = Buffer.from(buffer.subarray(held))
        break
      }
      const walk = walkTrie(matcher, buffer, start, final)
      if (walk.kind === 'undecided') {
        pieces.push(buffer.subarray(emitted, start))
        this.carry = Buffer.from(buffer.subarray(start))
        break
      }
      if (walk.kind === 'none') {
        last++
        continue
      }
      pieces.push(buffer.subarray(emitted, start), maskBytes)
      emitted = start + walk.length
      last = emitted + window - 1
    }
    if (pieces.length === 1) return pieces[0]!
    return Buffer.concat(pieces)
  }
}

/** Masks a whole text at once (the same rule as the stream). */
export function maskWhole(text: Buffer, values: readonly string[]): Buffer {
  const masker = new OutputMasker(values)
  const head = masker.push(text)
  return Buffer.concat([head, masker.end()])
}
