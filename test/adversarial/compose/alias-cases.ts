/**
 * Compose files that lean on YAML aliases, from plain reuse to bombs, generated so the test and the
 * go-yaml oracle (oracle/) read the same text. Shapes: go-yaml's own limit case (a flow list of
 * `{a}` maps used through 100 aliases) across its boundary; a block mapping used through aliases;
 * `<<` merges into many services; block sequence items; nested levels of aliases (bombs); scalars.
 */

const repeat = (count: number, make: (index: number) => string): string =>
  Array.from({ length: count }, (_, index) => make(index)).join('')

/** go-yaml's limit_test.go shape: `{a: &a [{a},...], b: &b [*a,...]}` with `items` maps and `uses` aliases. */
function flowList(items: number, uses: number): string {
  return `{a: &a [{a}${',{a}'.repeat(items - 1)}], b: &b [*a${',*a'.repeat(uses - 1)}]}\n`
}

/** A block mapping of `keys` keys, used `uses` times as the value of a key. */
function blockMapping(keys: number, uses: number): string {
  return (
    `x-a: &a\n${repeat(keys, (i) => `  k${i}: v${i}\n`)}` + `x-uses:\n${repeat(uses, (i) => `  u${i}: *a\n`)}`
  )
}

/** `services` services, each merging an anchored mapping of `keys` keys with `<<`. */
function merges(keys: number, services: number): string {
  return (
    `x-base: &base\n${repeat(keys, (i) => `  k${i}: v${i}\n`)}` +
    `services:\n${repeat(services, (i) => `  s${i}:\n    <<: *base\n    image: app-${i}\n`)}`
  )
}

/** An anchored block sequence of `items` items, used `uses` times as block sequence items. */
function sequenceItems(items: number, uses: number): string {
  return `x-a: &a\n${repeat(items, (i) => `  - item-${i}\n`)}` + `x-uses:\n${repeat(uses, () => '  - *a\n')}`
}

/** `levels` levels of anchored mappings, each using the one before `fanout` times. */
function nested(levels: number, fanout: number): string {
  let text = 'x-l0: &l0\n  k: v\n'
  for (let level = 1; level <= levels; level++) {
    text += `x-l${level}: &l${level}\n${repeat(fanout, (i) => `  k${i}: *l${level - 1}\n`)}`
  }
  return text
}

/** One anchored scalar used `uses` times. */
function scalars(uses: number): string {
  return `x-s: &s a-scalar\nx-uses:\n${repeat(uses, (i) => `  u${i}: *s\n`)}`
}

/** Every case: a name and the file's text. */
export interface AliasCase {
  name: string
  text: string
}

export function aliasCases(): AliasCase[] {
  const cases: AliasCase[] = []
  const add = (name: string, text: string) => cases.push({ name, text })
  for (const items of [256, 1000, 1300, 1310, 1315, 1320, 1325, 1330, 1340, 1400, 2000, 2560])
    add(`flow list of ${items} maps, 100 aliases`, flowList(items, 100))
  for (const uses of [50, 99, 101, 150, 200])
    add(`flow list of 1320 maps, ${uses} aliases`, flowList(1320, uses))
  for (const [keys, uses] of [
    [10, 100],
    [10, 10_000],
    [10, 30_000],
    [100, 1000],
    [100, 1900],
    [100, 2100],
    [1000, 150],
    [1000, 198],
    [1000, 202],
    [1000, 250],
  ] as [number, number][])
    add(`block mapping of ${keys} keys, ${uses} uses`, blockMapping(keys, uses))
  for (const [keys, services] of [
    [5, 500],
    [20, 2000],
    [100, 1000],
    [100, 2000],
    [300, 1300],
    [300, 1400],
  ] as [number, number][])
    add(`${services} services merging ${keys} keys`, merges(keys, services))
  for (const [items, uses] of [
    [100, 100],
    [1000, 300],
    [1000, 396],
    [1000, 400],
    [1000, 500],
  ] as [number, number][])
    add(`block sequence of ${items} items, ${uses} uses`, sequenceItems(items, uses))
  for (const [levels, fanout] of [
    [2, 8],
    [3, 8],
    [4, 8],
    [5, 8],
    [6, 8],
    [4, 10],
    [5, 10],
    [9, 3],
    [10, 3],
    [11, 3],
    [12, 3],
  ] as [number, number][])
    add(`${levels} nested levels of ${fanout} aliases`, nested(levels, fanout))
  for (const uses of [100, 10_000, 100_000]) add(`one scalar used ${uses} times`, scalars(uses))
  add('an alias inside its own anchor (flow)', 'x-a: &a [*a]\n')
  add('an alias inside its own anchor (block)', 'x-a: &a\n  - *a\n')
  return cases
}
