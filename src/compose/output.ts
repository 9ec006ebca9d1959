/**
 * What render writes: the model as YAML or JSON with every `$` of a string value written as `$$`
 * (as `docker compose config` does, so the output loads again), mapping keys untouched. The YAML
 * writer is a small block-style emitter: a string is written plain only when every YAML 1.1 and
 * 1.2 reader reads it back as that same string, and JSON-quoted (valid YAML) otherwise.
 */

/** `yaml`/`json`: compose v2's normalised model; `source`: the loaded model as YAML, closer to the files. */
export type RenderFormat = 'yaml' | 'json' | 'source'

function escapeValue(text: string): string {
  return text.includes('$') ? text.replaceAll('$', '$$$$') : text
}

/** A copy of the model with `$` doubled in every string value (keys are left as they are). */
export function escapeDollars(node: unknown): unknown {
  if (typeof node === 'string') return escapeValue(node)
  if (Array.isArray(node)) return node.map(escapeDollars)
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, escapeDollars(value)]))
  }
  return node
}

/** The model as text (`source` is YAML); `escape: false` keeps `$` single (for `--no-interpolate`). */
export function formatModel(model: Record<string, unknown>, format: RenderFormat, escape = true): string {
  const value = escape ? escapeValue : (text: string) => text
  if (format === 'json') {
    const replacer = (_key: string, item: unknown) => (typeof item === 'string' ? value(item) : item)
    return `${JSON.stringify(model, replacer, 2)}\n`
  }
  const lines: string[] = []
  writeNode(model, 0, lines, value)
  return `${lines.join('\n')}\n`
}

const plainSafe = /^[A-Za-z_/$][A-Za-z0-9 _./:$=(),+@-]*$/
const plainUnsafe =
  /: |:$| $| #|^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/

/** A scalar as YAML text that reads back as the same value. */
function yamlScalar(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '.nan'
    if (!Number.isFinite(value)) return value > 0 ? '.inf' : '-.inf'
    return String(value)
  }
  const text = String(value)
  return plainSafe.test(text) && !plainUnsafe.test(text) ? text : JSON.stringify(text)
}

function isCollection(value: unknown): value is object {
  return value !== null && typeof value === 'object'
}

function isEmpty(value: object): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0
}

function leafText(leaf: unknown, value: (text: string) => string): string {
  if (isCollection(leaf)) return Array.isArray(leaf) ? '[]' : '{}'
  return yamlScalar(typeof leaf === 'string' ? value(leaf) : leaf)
}

function writeNode(node: unknown, indent: number, lines: string[], value: (text: string) => string): void {
  const pad = ' '.repeat(indent)
  if (Array.isArray(node)) {
    for (const item of node) {
      if (isCollection(item) && !isEmpty(item)) {
        // the item's first line, written at the item's indent, gets the `- ` in place of its padding
        const first = lines.length
        writeNode(item, indent + 2, lines, value)
        lines[first] = `${pad}- ${lines[first]!.slice(indent + 2)}`
      } else {
        lines.push(`${pad}- ${leafText(item, value)}`)
      }
    }
    return
  }
  const record = node as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const entry = record[key]
    const name = yamlScalar(key)
    if (isCollection(entry) && !isEmpty(entry)) {
      lines.push(`${pad}${name}:`)
      writeNode(entry, indent + 2, lines, value)
    } else {
      lines.push(`${pad}${name}: ${leafText(entry, value)}`)
    }
  }
}
