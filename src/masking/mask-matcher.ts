/**
 * The matcher behind output masking (src/masking/output-mask.ts): which values are masked, and for a set
 * of values a Wu-Manber shift table over 3-byte blocks plus a byte trie that finds the longest value
 * starting at a position. Built once per set of values, on the start-up path of every masked `vault
 * run`: the trie's edges are one open-addressing hash table in typed arrays (a Map per node was slower
 * to build: docs/cli-performance.md).
 */

import { minimumMaskedLength } from '../text/mask-text.js'

const blockSize = 3
const shiftTableBits = 18
const shiftTableSize = 1 << shiftTableBits

/** The matcher of one set of values. */
export interface Matcher {
  /** Trie edges (node, byte) -> child as a hash table: key node * 256 + byte + 1 (0: free slot). */
  edgeKeys: Float64Array
  /** The child node of the edge in the same slot (the root, node 0, is never a child). */
  edgeTargets: Int32Array
  /** The table has 2 ** edgeBits slots. */
  edgeBits: number
  /** Length of the value ending at a node, 0 when none does. */
  valueLength: Int32Array
  /** 1 when the trie continues from the node. */
  hasChild: Uint8Array
  /** How far the window may move for the hash of the block that ends it. */
  shift: Uint8Array
  /** The shortest value's length: the window size. */
  window: number
  /** The longest value's length in bytes. */
  longest: number
}

/** The values that will be masked (unique, at least 4 characters) and how many were too short. */
export function maskableValues(values: Iterable<string>): { masked: string[]; tooShort: number } {
  const unique = [...new Set(values)].filter((value) => value.length > 0)
  const masked = unique.filter((value) => value.length >= minimumMaskedLength)
  return { masked, tooShort: unique.length - masked.length }
}

/** The shift-table slot of the 3-byte block b0 b1 b2. */
export function blockHash(b0: number, b1: number, b2: number): number {
  return Math.imul((b0 << 16) | (b1 << 8) | b2, 0x9e3779b1) >>> (32 - shiftTableBits)
}

function buildMatcher(patterns: Buffer[]): Matcher {
  const capacity = patterns.reduce((sum, pattern) => sum + pattern.length, 1)
  const edgeBits = Math.max(4, Math.ceil(Math.log2(capacity)) + 1)
  const trie: Matcher = {
    edgeKeys: new Float64Array(2 ** edgeBits),
    edgeTargets: new Int32Array(2 ** edgeBits),
    edgeBits,
    valueLength: new Int32Array(capacity),
    hasChild: new Uint8Array(capacity),
    shift: new Uint8Array(0),
    window: 0,
    longest: 0,
  }
  let nodes = 1
  for (const pattern of patterns) {
    let node = 0
    for (let index = 0; index < pattern.length; index++) {
      const slot = edgeSlot(trie, node, pattern[index]!)
      if (trie.edgeKeys[slot] === 0) {
        trie.edgeKeys[slot] = node * 256 + pattern[index]! + 1
        trie.edgeTargets[slot] = nodes++
        trie.hasChild[node] = 1
      }
      node = trie.edgeTargets[slot]!
    }
    trie.valueLength[node] = pattern.length
  }
  const window = Math.min(255, Math.min(...patterns.map((pattern) => pattern.length)))
  const shift = new Uint8Array(shiftTableSize).fill(window - blockSize + 1)
  for (const pattern of patterns) {
    for (let end = blockSize - 1; end < window; end++) {
      const hash = blockHash(pattern[end - 2]!, pattern[end - 1]!, pattern[end]!)
      shift[hash] = Math.min(shift[hash]!, window - 1 - end)
    }
  }
  const longest = Math.max(...patterns.map((pattern) => pattern.length))
  return { ...trie, shift, window, longest }
}

/** The slot of edge (node, byte): where it is, or the free slot where it would go. */
function edgeSlot(matcher: Matcher, node: number, byte: number): number {
  const { edgeKeys, edgeBits } = matcher
  const key = node * 256 + byte + 1
  const mask = edgeKeys.length - 1
  let slot = (Math.imul(node, 0x9e3779b1) ^ Math.imul(byte + 1, 0x85ebca6b)) >>> (32 - edgeBits)
  while (edgeKeys[slot] !== 0 && edgeKeys[slot] !== key) slot = (slot + 1) & mask
  return slot
}

const matchers = new WeakMap<readonly string[], Matcher | undefined>()

/** The matcher of `values` (the same array gives the same matcher), or undefined when none is masked. */
export function matcherFor(values: readonly string[]): Matcher | undefined {
  if (!matchers.has(values)) {
    const patterns = maskableValues(values).masked.map((value) => Buffer.from(value, 'utf8'))
    matchers.set(values, patterns.length > 0 ? buildMatcher(patterns) : undefined)
  }
  return matchers.get(values)
}

/** The outcome of the trie walk from one position. */
type WalkResult = { kind: 'match'; length: number } | { kind: 'none' } | { kind: 'undecided' }

/** The longest value starting at `start`, or undecided when more bytes could make a longer one. */
export function walkTrie(matcher: Matcher, buffer: Buffer, start: number, final: boolean): WalkResult {
  const { valueLength, hasChild, edgeKeys, edgeTargets } = matcher
  let node = 0
  let longest = 0
  for (let index = start; ; index++) {
    if (valueLength[node]! > 0) longest = valueLength[node]!
    if (!hasChild[node]) break
    if (index >= buffer.length) {
      if (!final) return { kind: 'undecided' }
      break
    }
    const slot = edgeSlot(matcher, node, buffer[index]!)
    if (edgeKeys[slot] === 0) break
    node = edgeTargets[slot]!
  }
  return longest > 0 ? { kind: 'match', length: longest } : { kind: 'none' }
}
