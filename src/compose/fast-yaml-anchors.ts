/**
 * Anchors (`&name`), aliases (`*name`) and `<<` merge keys for the fast YAML reader, in the block
 * forms compose files use them (`x-env: &env` over a block, `environment: *env`, `<<: *defaults`,
 * `<<: [*a, *b]`). Anything else (anchors inside flow collections, tags, an alias to an unknown
 * anchor) is left to the full parser. Merge keys follow YAML's rule as the full parser applies it:
 * keys written in the mapping win, and among several merged mappings the first one wins.
 */
import { UnsupportedYaml } from './fast-yaml-errors.js'

const anchorPattern = /^&([^\s,[\]{}]+)(?:[ \t]+(.*))?$/
const aliasPattern = /^\*([^\s,[\]{}]+)[ \t]*(?:#.*)?$/
const aliasListPattern = /^\[([^[\]{}#]*)\][ \t]*(?:#.*)?$/

const unsupported = (why: string): never => {
  throw new UnsupportedYaml(why)
}

/** `&name rest` split into the anchor's name and what follows it (`''` when it is a block). */
export function splitAnchor(text: string): { name: string; rest: string } {
  const match = anchorPattern.exec(text) ?? unsupported('anchor')
  const rest = (match[2] ?? '').trim()
  if (/^[&*!|>]/.test(rest)) unsupported('anchor on an alias, a tag or a block scalar')
  return { name: match[1]!, rest }
}

/** True when `text` is an alias (`*name`, maybe followed by a comment). */
export function isAlias(text: string): boolean {
  return aliasPattern.test(text)
}

/** The value of the alias `text` (`*name`); an unknown anchor is for the full parser to report. */
export function resolveAlias(anchors: Map<string, unknown>, text: string): unknown {
  const name = aliasPattern.exec(text)?.[1] ?? unsupported('alias')
  return anchors.has(name) ? anchors.get(name) : unsupported('unknown alias')
}

/** The mappings a `<<` entry merges: one alias, or a flow list of aliases. */
export function mergeSources(anchors: Map<string, unknown>, text: string): Record<string, unknown>[] {
  const list = aliasListPattern.exec(text)
  const aliases = list ? list[1]!.split(',').map((item) => item.trim()) : [text]
  return aliases.map((alias) => {
    const value = resolveAlias(anchors, alias)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : unsupported('merge of a non-mapping')
  })
}

/** One entry of a mapping as written: a key and its value, or a `<<` with the mappings it merges. */
export type MappingEntry = { key: string; value: unknown } | { merge: Record<string, unknown>[] }

/** Builds the mapping: written keys win over merged ones (which come in at the `<<`, first source first). */
export function buildMapping(entries: MappingEntry[]): Record<string, unknown> {
  const mapping: Record<string, unknown> = {}
  if (entries.every((entry) => 'key' in entry)) {
    for (const entry of entries as { key: string; value: unknown }[]) mapping[entry.key] = entry.value
    return mapping
  }
  const written = new Set(entries.flatMap((entry) => ('key' in entry ? [entry.key] : [])))
  for (const entry of entries) {
    if ('key' in entry) {
      mapping[entry.key] = entry.value
      continue
    }
    for (const source of entry.merge) {
      for (const [key, value] of Object.entries(source)) {
        if (!Object.hasOwn(mapping, key) && !written.has(key)) mapping[key] = value
      }
    }
  }
  return mapping
}
