/**
 * Limits on the structure of a JSON text from the vault, checked without parsing it (while it streams,
 * or whole): how deep it
 * nests and how many objects and arrays it holds. A vault's answers nest a few levels
 * (`{ secrets: [ { ... } ] }`) and a real environment holds hundreds of secrets, so an answer past
 * either bound is refused before JSON.parse builds it, as soon as the bound is crossed: V8 parses any depth, but JSON.stringify and any
 * recursive walk of the result would overflow the stack, and a 64 MiB list of a million empty secrets
 * took the CLI to 800 MB of memory and 40 s where a million objects were never needed.
 */

/** Nesting deeper than this is refused in any answer of the vault. */
export const maxJsonDepth = 64
/** More objects and arrays than this (a secret is one object) are refused in any answer of the vault. */
export const maxJsonContainers = 100_000

const quote = 0x22
const backslash = 0x5c

export interface JsonLimits {
  depth: number
  containers: number
}

/**
 * A check fed a JSON text in pieces (Buffers of UTF-8, whose multi-byte sequences never hold an ASCII
 * byte, or strings): it returns what exceeds the limits as soon as a piece does, or undefined.
 */
export function jsonLimitGuard(
  limits: JsonLimits = { depth: maxJsonDepth, containers: maxJsonContainers },
): (piece: Uint8Array | string) => string | undefined {
  let depth = 0
  let containers = 0
  let inString = false
  let escaped = false
  return (piece) => {
    const text = typeof piece === 'string' ? piece : undefined
    const bytes = typeof piece === 'string' ? undefined : piece
    for (let index = 0; index < piece.length; index++) {
      const code = text === undefined ? bytes![index]! : text.charCodeAt(index)
      if (escaped) escaped = false
      else if (inString) {
        if (code === backslash) escaped = true
        else if (code === quote) inString = false
      } else if (code === quote) inString = true
      else if (code === 0x5b || code === 0x7b) {
        if (++depth > limits.depth) return `its JSON is nested deeper than ${limits.depth} levels`
        if (++containers > limits.containers)
          return `its JSON holds more than ${limits.containers} objects and arrays`
      } else if (code === 0x5d || code === 0x7d) depth--
    }
    return undefined
  }
}

/** What makes `text` (JSON, well-formed or not) exceed the limits, or undefined when nothing does. */
export function jsonLimitExceeded(text: string, limits?: JsonLimits): string | undefined {
  return jsonLimitGuard(limits)(text)
}
