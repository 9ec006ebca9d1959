/**
 * The one-pass multi-pattern search behind `vault scan`: Wu-Manber over 3-byte blocks (a shift table
 * indexed by the hash of the block that ends a window as long as the shortest pattern) and, where the
 * shift is 0, a hash of the window's first bytes that lists the patterns starting with them, each
 * compared byte by byte. Every occurrence of every pattern is reported, overlapping ones included, in
 * the order of their start. A search runs over a stream: `ChunkSearch` keeps the bytes a pattern may
 * still need from one chunk to the next (at most the longest pattern, never a whole input).
 */

const blockSize = 3
const shiftBits = 18
const prefixLength = 8

/** A compiled set of byte patterns (each at least 8 bytes). */
export interface Matcher {
  patterns: readonly Buffer[]
  /** The shortest pattern's length, capped at 255: the Wu-Manber window. */
  window: number
  longest: number
  shift: Uint8Array
  /** Prefix hash -> the first index in `bucketItems` of its patterns; `bucketStart[h+1]` ends them. */
  bucketStart: Int32Array
  bucketItems: Int32Array
  prefixBits: number
}

/** An occurrence: pattern index and the absolute byte offset where it starts. */
export type OnMatch = (pattern: number, offset: number) => void

/** An occurrence in a stream: pattern index, absolute byte offset and 1-based line of its start. */
export type OnStreamMatch = (pattern: number, offset: number, line: number) => void

function blockHash(b0: number, b1: number, b2: number): number {
  return Math.imul((b0 << 16) | (b1 << 8) | b2, 0x9e3779b1) >>> (32 - shiftBits)
}

function prefixHash(buffer: Uint8Array, at: number, bits: number): number {
  const low = buffer[at]! | (buffer[at + 1]! << 8) | (buffer[at + 2]! << 16) | (buffer[at + 3]! << 24)
  const high = buffer[at + 4]! | (buffer[at + 5]! << 8) | (buffer[at + 6]! << 16) | (buffer[at + 7]! << 24)
  return (Math.imul(low, 0x9e3779b1) ^ Math.imul(high ^ (low >>> 15), 0x85ebca6b)) >>> (32 - bits)
}

/** Compiles `patterns` (every one at least 8 bytes long). */
export function compileMatcher(patterns: readonly Buffer[]): Matcher {
  for (const pattern of patterns)
    if (pattern.length < prefixLength) throw new RangeError(`a pattern is shorter than ${prefixLength} bytes`)
  const window = patterns.length === 0 ? prefixLength : Math.min(255, ...patterns.map((p) => p.length))
  const longest = patterns.length === 0 ? prefixLength : Math.max(...patterns.map((p) => p.length))
  const shift = new Uint8Array(1 << shiftBits).fill(window - blockSize + 1)
  for (const pattern of patterns)
    for (let end = blockSize - 1; end < window; end++) {
      const hash = blockHash(pattern[end - 2]!, pattern[end - 1]!, pattern[end]!)
      shift[hash] = Math.min(shift[hash]!, window - 1 - end)
    }
  const prefixBits = Math.max(4, Math.ceil(Math.log2(patterns.length + 1)) + 1)
  const counts = new Int32Array((1 << prefixBits) + 1)
  const hashes = patterns.map((pattern) => prefixHash(pattern, 0, prefixBits))
  for (const hash of hashes) counts[hash + 1]!++
  for (let index = 1; index < counts.length; index++) counts[index]! += counts[index - 1]!
  const bucketStart = counts.slice()
  const fill = counts.slice()
  const bucketItems = new Int32Array(patterns.length)
  hashes.forEach((hash, pattern) => (bucketItems[fill[hash]!++] = pattern))
  return { patterns, window, longest, shift, bucketStart, bucketItems, prefixBits }
}

/**
 * Reports every occurrence starting at a position in [from, until) of `buffer` whose bytes are all in
 * the buffer (`base` is the buffer's absolute offset); returns the first position not examined.
 */
export function searchBuffer(
  matcher: Matcher,
  buffer: Uint8Array,
  range: { from: number; until: number; base: number },
  onMatch: OnMatch,
): number {
  const { window, shift, bucketStart, bucketItems, prefixBits, patterns } = matcher
  const until = Math.min(range.until, buffer.length - window + 1)
  let position = range.from
  while (position < until) {
    const last = position + window - 1
    const step = shift[blockHash(buffer[last - 2]!, buffer[last - 1]!, buffer[last]!)]!
    if (step !== 0) {
      position += step
      continue
    }
    const hash = prefixHash(buffer, position, prefixBits)
    for (let item = bucketStart[hash]!; item < bucketStart[hash + 1]!; item++) {
      const index = bucketItems[item]!
      const pattern = patterns[index]!
      if (position + pattern.length > buffer.length) continue
      let at = 0
      while (at < pattern.length && buffer[position + at] === pattern[at]) at++
      if (at === pattern.length) onMatch(index, range.base + position)
    }
    position++
  }
  return Math.max(position, range.from)
}

/**
 * A search over a stream of chunks; every occurrence is reported once, across chunk boundaries too,
 * with the line it starts on (newlines are counted as the stream goes).
 */
export class ChunkSearch {
  private carry: Buffer = Buffer.alloc(0)
  /** Absolute offset of the carry's first byte. */
  private carryBase = 0
  /** Position inside the carry where the search resumes. */
  private resume = 0
  /** Newlines before absolute offset `countedTo`. */
  private newlines = 0
  private countedTo = 0

  constructor(
    readonly matcher: Matcher,
    private readonly onMatch: OnStreamMatch,
  ) {}

  /** Searches the next chunk of the stream. */
  push(chunk: Uint8Array): void {
    const buffer =
      this.carry.length === 0
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)
        : Buffer.concat([this.carry, chunk])
    const keep = Math.max(0, buffer.length - this.matcher.longest + 1)
    const next = this.search(buffer, keep)
    const cut = Math.min(next, keep)
    this.countNewlines(buffer, this.carryBase + cut)
    this.carry = Buffer.from(buffer.subarray(cut))
    this.carryBase += cut
    this.resume = next - cut
  }

  /** Searches what is left at the end of the stream. */
  end(): void {
    this.search(this.carry, this.carry.length)
    this.carry = Buffer.alloc(0)
  }

  private search(buffer: Buffer, until: number): number {
    if (this.matcher.patterns.length === 0) return until
    const range = { from: this.resume, until, base: this.carryBase }
    return searchBuffer(this.matcher, buffer, range, (pattern, offset) => {
      this.countNewlines(buffer, offset)
      this.onMatch(pattern, offset, this.newlines + 1)
    })
  }

  /** Counts the newlines of `buffer` (which starts at carryBase) up to absolute offset `to`. */
  private countNewlines(buffer: Buffer, to: number): void {
    const view = buffer.subarray(0, to - this.carryBase)
    for (let at = view.indexOf(10, this.countedTo - this.carryBase); at !== -1; at = view.indexOf(10, at + 1))
      this.newlines++
    this.countedTo = Math.max(this.countedTo, to)
  }
}
