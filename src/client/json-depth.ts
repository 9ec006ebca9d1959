/**
 * The nesting depth of a JSON text, counted without parsing it: a vault's answers nest a few levels
 * (`{ secrets: [ { ... } ] }`), so an answer nested deeper than a small bound is refused before
 * JSON.parse builds it (V8 parses any depth, but JSON.stringify and every recursive walk of the
 * result would then overflow the stack).
 */

/** Nesting deeper than this is refused in any answer of the vault. */
export const maxJsonDepth = 64

const quote = 0x22
const backslash = 0x5c
const opening = new Set([0x5b, 0x7b])
const closing = new Set([0x5d, 0x7d])

/** Whether `text` (JSON, well-formed or not) opens more than `limit` arrays or objects at once. */
export function nestedDeeperThan(text: string, limit: number = maxJsonDepth): boolean {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === backslash) index++
      else if (code === quote) inString = false
    } else if (code === quote) inString = true
    else if (opening.has(code)) {
      if (++depth > limit) return true
    } else if (closing.has(code)) depth--
  }
  return false
}
