/**
 * How deep a compose file may nest its collections. go-yaml, the reader compose-go decodes compose
 * files with, refuses more than 10,000 flow levels or 10,000 block indentation levels (`max_flow_level`
 * and `max_indents` in yaml.v3's scannerc.go: "exceeded max depth of 10000"). The stages of vault's
 * loader (the `yaml` package's composer, interpolation, normalisation, output) recurse once per level
 * and run out of stack at about 770 levels, so vault's limit is lower, 256: far beyond any real file
 * (compose's own keys nest 6 deep), a third of what the stages can take (a deliberate difference,
 * docs/compose-differences.md).
 *
 * The text is checked while it is parsed (yaml-document.ts, fast-yaml.ts), so a megabyte of `[[[[`
 * is refused after 256 of them; the parsed value is checked here, since aliases can nest an anchored
 * value inside another copy of itself and reach any depth from a shallow text.
 */
import { ComposeInputError } from './errors.js'

/** The deepest nesting of mappings and sequences a compose file may have; the top mapping is level 1. */
export const maxNestingDepth = 256

/** The error for a file nested deeper than `maxNestingDepth`, at `line` when known. */
export function nestingTooDeep(file: string, line: number | undefined): ComposeInputError {
  return new ComposeInputError(
    file,
    line,
    `invalid YAML: exceeded max depth of ${maxNestingDepth}`,
    `vault reads mappings and sequences nested at most ${maxNestingDepth} deep (compose allows 10000)`,
  )
}

function childrenOf(node: object): [string | number, unknown][] {
  if (Array.isArray(node)) return node.map((item: unknown, index) => [index, item])
  return Object.entries(node)
}

function valuesOf(node: object): unknown[] {
  return Array.isArray(node) ? node : Object.values(node)
}

function isCollection(value: unknown): value is object {
  return value !== null && typeof value === 'object'
}

/**
 * The height of every collection in `value` (a scalar is 0, an empty collection 1), without
 * recursion, in time linear in the distinct collections (a value shared by aliases is measured once).
 * An alias inside its own anchored value counts as a scalar here; alias-expansion.ts refuses it.
 */
function heights(value: unknown): Map<object, number> {
  const measured = new Map<object, number>()
  if (!isCollection(value)) return measured
  const inProgress = new Set<object>([value])
  const stack: { node: object; children: unknown[]; next: number; height: number }[] = [
    { node: value, children: valuesOf(value), next: 0, height: 1 },
  ]
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next === frame.children.length) {
      stack.pop()
      inProgress.delete(frame.node)
      measured.set(frame.node, frame.height)
      const parent = stack[stack.length - 1]
      if (parent) parent.height = Math.max(parent.height, frame.height + 1)
      continue
    }
    const child = frame.children[frame.next++]
    if (!isCollection(child) || inProgress.has(child)) continue
    const known = measured.get(child)
    if (known !== undefined) frame.height = Math.max(frame.height, known + 1)
    else {
      inProgress.add(child)
      stack.push({ node: child, children: valuesOf(child), next: 0, height: 1 })
    }
  }
  return measured
}

/**
 * The path (keys and indexes from the top) of the first collection in `value` that lies deeper than
 * `limit` levels, aliases followed; undefined when the whole value is within the limit.
 */
export function pathPastDepth(
  value: unknown,
  limit: number = maxNestingDepth,
): (string | number)[] | undefined {
  const measured = heights(value)
  if (!isCollection(value) || (measured.get(value) ?? 0) <= limit) return undefined
  const path: (string | number)[] = []
  let node: object = value
  for (let level = 1; level <= limit; level++) {
    const needed = limit - level + 1
    const [key, child] = childrenOf(node).find(
      ([, item]) => isCollection(item) && (measured.get(item) ?? 0) >= needed,
    )!
    path.push(key)
    node = child as object
  }
  return path
}
