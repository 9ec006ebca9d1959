/**
 * What render writes: the model as YAML or JSON with every `$` of a string value written as `$$`
 * (as `docker compose config` does, so the output loads again), mapping keys untouched.
 */
import { stringify } from 'yaml'

export type RenderFormat = 'yaml' | 'json'

/** A copy of the model with `$` doubled in every string value (keys are left as they are). */
export function escapeDollars(node: unknown): unknown {
  if (typeof node === 'string') return node.includes('$') ? node.replaceAll('$', '$$$$') : node
  if (Array.isArray(node)) return node.map(escapeDollars)
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, escapeDollars(value)]))
  }
  return node
}

/** The model as text in `format`; `escape: false` keeps `$` single (for `--no-interpolate`). */
export function formatModel(model: Record<string, unknown>, format: RenderFormat, escape = true): string {
  const printable = escape ? escapeDollars(model) : model
  if (format === 'json') return `${JSON.stringify(printable, null, 2)}\n`
  return stringify(printable, { lineWidth: 0, aliasDuplicateObjects: false })
}
