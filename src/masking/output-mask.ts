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
 * own prefix) costs up to one trie walk per byte (the matcher itself: src/masking/mask-matcher.ts).
 *
 * No chunk is copied: the bytes held back are joined only with the next chunk's first bytes (the
 * seam, where a held value could end), and the output is pieces that are views into the chunk. At
 * 100 MB of output, copying each chunk into a fresh buffer cost more than the matching (bench/mask.ts).
 */

import { maskText } from '../text/mask-text.js'
import { blockHash, matcherFor, walkTrie, type Matcher } from './mask-matcher.js'

export { maskableValues } from './mask-matcher.js'

const maskBytes = Buffer.from(maskText)

/** What one scan covers: `buffer` from `from`, starts decided before `limit`, output into `pieces`. */
interface ScanSpan {
  buffer: Buffer
  from: number
  limit: number
  pieces: Buffer[]
}

/**
 * A streaming masker for one output stream. `push` returns the bytes that are final; `end` returns
 * the rest. The same instance must not be shared by two streams.
 */
export class OutputMasker {
  private carry: Buffer = Buffer.alloc(0)
  private built: { matcher: Matcher | undefined } | undefined

  /**
   * `values` may be shared by several maskers (stdout and stderr): the matcher is built once, when
   * the first output arrives (a child that prints nothing never pays for it on its start-up path).
   */
  constructor(private readonly values: readonly string[]) {}

  private get matcher(): Matcher | undefined {
    this.built ??= { matcher: matcherFor(this.values) }
    return this.built.matcher
  }

  /** Masks a chunk; bytes that could still begin a value are held back for the next call. */
  push(chunk: Buffer): Buffer {
    const pieces = this.pushPieces(chunk)
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)
  }

  /**
   * `push` without joining: the final bytes as pieces, mostly views into `chunk` (no copy of the
   * chunk, which is what costs at 100 MB of output), to be written in order.
   */
  pushPieces(chunk: Buffer): Buffer[] {
    const matcher = this.matcher
    if (!matcher) return [chunk]
    const pieces: Buffer[] = []
    const held = this.carry
    if (held.length === 0) {
      this.scan({ buffer: chunk, from: 0, limit: chunk.length, pieces }, false)
      return pieces
    }
    if (chunk.length <= matcher.longest) {
      const joined = Buffer.concat([held, chunk])
      this.scan({ buffer: joined, from: 0, limit: joined.length, pieces }, false)
      return pieces
    }
    const seam = Buffer.concat([held, chunk.subarray(0, matcher.longest)])
    const resume = this.scan({ buffer: seam, from: 0, limit: held.length, pieces }, false)
    this.scan({ buffer: chunk, from: resume - held.length, limit: chunk.length, pieces }, false)
    return pieces
  }

  /** Masks and returns whatever is held back; call once at the end of the stream. */
  end(): Buffer {
    if (this.carry.length === 0 || !this.matcher) return Buffer.alloc(0)
    const pieces: Buffer[] = []
    this.scan({ buffer: this.carry, from: 0, limit: this.carry.length, pieces }, true)
    return Buffer.concat(pieces)
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
    if (this.carry.length === 0 || !this.matcher) return Buffer.alloc(0)
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

  /**
   * Masks `buffer` from `from`, deciding every start before `limit`, and appends the final bytes to
   * `pieces`. With `limit` below the buffer's length (the seam of held bytes and the next chunk),
   * returns where the next scan resumes and keeps nothing; otherwise holds back the undecided tail.
   */
  private scan(span: ScanSpan, final: boolean): number {
    const { shift, window } = this.matcher!
    const { buffer, limit, pieces } = span
    const seam = limit < buffer.length
    const length = buffer.length
    let emitted = span.from
    let last = emitted + window - 1
    for (;;) {
      while (last < length) {
        const step = shift[blockHash(buffer[last - 2]!, buffer[last - 1]!, buffer[last]!)]!
        if (step === 0) break
        last += step
      }
      const start = last - window + 1
      if (seam && start >= limit) {
        if (emitted < limit) pieces.push(buffer.subarray(emitted, limit))
        return Math.max(emitted, limit)
      }
      if (last >= length) {
        const held = final ? length : Math.min(start, length)
        if (held > emitted) pieces.push(buffer.subarray(emitted, held))
        this.carry = Buffer.from(buffer.subarray(Math.max(held, emitted)))
        return length
      }
      const walk = walkTrie(this.matcher!, buffer, start, final)
      if (walk.kind === 'undecided') {
        if (start > emitted) pieces.push(buffer.subarray(emitted, start))
        this.carry = Buffer.from(buffer.subarray(start))
        return length
      }
      if (walk.kind === 'none') {
        last++
        continue
      }
      if (start > emitted) pieces.push(buffer.subarray(emitted, start))
      pieces.push(maskBytes)
      emitted = start + walk.length
      last = emitted + window - 1
    }
  }
}

/** Masks a whole text at once (the same rule as the stream). */
export function maskWhole(text: Buffer, values: readonly string[]): Buffer {
  const masker = new OutputMasker(values)
  const head = masker.push(text)
  return Buffer.concat([head, masker.end()])
}
