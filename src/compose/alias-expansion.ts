/**
 * Compose's guard against YAML alias bombs, applied to a parsed compose file before anything walks it.
 * Both parsers (fast-yaml.ts and the `yaml` package) give an alias the anchored value itself, shared,
 * so a 1 KB file of nested aliases parses at once; every later stage (interpolation, normalisation,
 * output) copies each use, and 8 aliases on each of 6 levels took `vault render` to 1.9 s and 340 MB,
 * one more level to the whole machine's memory.
 *
 * The rule is go-yaml's (`allowedAliasRatio` and `decoder.unmarshal` in yaml.v3's decode.go), the
 * reader compose-go decodes compose files with, so what compose refuses is refused here, with its
 * message: every node counts as one decode (a mapping, each key, each value, a sequence, each item),
 * an alias as one plus the nodes of what it expands to, and those expanded nodes also count as alias
 * decodes. With more than 100 alias decodes in more than 1,000, their share may not pass 99% up to
 * 400,000 decodes, falling linearly to 10% at 4,000,000 and beyond.
 *
 * The decodes are counted on the parsed value: a collection met a second time is an alias use (both
 * parsers share the anchored object), and its size was counted the first time, so the count takes time
 * linear in the file, never in its expansion. An alias to a scalar cannot be told from a copy and counts
 * as one plain decode; it adds two nodes at most.
 */
import { ComposeInputError } from './errors.js'

const ratioRangeLow = 400_000
const ratioRangeHigh = 4_000_000

/** The share of decodes that may come from alias expansion, at `decodes` decodes (go-yaml's). */
export function allowedAliasRatio(decodes: number): number {
  if (decodes <= ratioRangeLow) return 0.99
  if (decodes >= ratioRangeHigh) return 0.1
  return 0.99 - (0.89 * (decodes - ratioRangeLow)) / (ratioRangeHigh - ratioRangeLow)
}

/** go-yaml's condition for "document contains excessive aliasing". */
export function excessiveAliasing(decodes: number, aliasDecodes: number): boolean {
  return aliasDecodes > 100 && decodes > 1000 && aliasDecodes / decodes > allowedAliasRatio(decodes)
}

/** How many decodes a parsed value takes, and how many of them come from aliases. */
export interface AliasExpansion {
  decodes: number
  aliasDecodes: number
}

/**
 * Counts the decodes of `value` in document order, stopping with `refused: 'excessive'` at the first
 * alias use after which go-yaml would fail (within one alias's expansion the condition, once true,
 * stays true), or with `'cycle'` at an alias inside the value it names (the `yaml` package builds such
 * a value; go-yaml refuses it).
 */
export function countAliasExpansion(
  value: unknown,
): AliasExpansion & { refused: false | 'excessive' | 'cycle' } {
  const sizes = new Map<object, number>()
  const inProgress = new Set<object>()
  const count = { decodes: 0, aliasDecodes: 0 }
  const visit = (node: unknown): number => {
    if (node === null || typeof node !== 'object') {
      count.decodes++
      return 1
    }
    if (inProgress.has(node)) throw cycle
    const size = sizes.get(node)
    if (size !== undefined) {
      // an alias: the alias node itself, then what it expands to
      count.decodes += 1 + size
      count.aliasDecodes += size
      if (excessiveAliasing(count.decodes, count.aliasDecodes)) throw refusal
      return 1 + size
    }
    inProgress.add(node)
    let total = 1
    count.decodes++
    if (Array.isArray(node)) {
      for (const item of node) total += visit(item)
    } else {
      for (const key of Object.keys(node)) {
        count.decodes++
        total += 1 + visit((node as Record<string, unknown>)[key])
      }
    }
    inProgress.delete(node)
    sizes.set(node, total)
    return total
  }
  try {
    visit(value)
  } catch (error) {
    if (error !== refusal && error !== cycle) throw error
    return { ...count, refused: error === refusal ? 'excessive' : 'cycle' }
  }
  return { ...count, refused: excessiveAliasing(count.decodes, count.aliasDecodes) ? 'excessive' : false }
}

const refusal = Symbol('excessive aliasing')
const cycle = Symbol('alias inside its own anchor')

/** Throws compose's error when the parsed file `value` expands its aliases beyond go-yaml's rule. */
export function checkAliasExpansion(value: unknown, file: string): void {
  const { refused } = countAliasExpansion(value)
  if (refused === false) return
  throw new ComposeInputError(
    file,
    undefined,
    refused === 'excessive'
      ? 'invalid YAML: document contains excessive aliasing'
      : 'invalid YAML: an anchored value contains an alias to itself',
    refused === 'excessive'
      ? 'an alias repeats the anchored value each time it is used; nested aliases multiply that'
      : undefined,
  )
}
