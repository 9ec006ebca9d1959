/**
 * Redaction of known secret values from text that came from elsewhere (a child's stderr, a server
 * message) before it is shown.
 */
import { maskText, minimumMaskedLength } from '../mask-text.js'

/** `text` with every occurrence of each value (long enough to be masked) replaced by the mask text. */
export function redactValues(text: string, values: Iterable<string>): string {
  const sorted = [...new Set(values)]
    .filter((value) => value.length >= minimumMaskedLength)
    .sort((a, b) => b.length - a.length)
  let result = text
  for (const value of sorted) result = result.split(value).join(maskText)
  return result
}
