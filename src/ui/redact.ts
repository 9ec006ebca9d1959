/**
 * Redaction of known secret values from text that came from elsewhere (a child's stderr, a server
 * message) before it is shown.
 */

/** `text` with every occurrence of each value (of 4 characters or more) replaced by `***`. */
export function redactValues(text: string, values: Iterable<string>): string {
  const sorted = [...new Set(values)].filter((value) => value.length >= 4).sort((a, b) => b.length - a.length)
  let result = text
  for (const value of sorted) result = result.split(value).join('***')
  return result
}
