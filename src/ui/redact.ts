/**
 * Redaction of known secret values: the one mask text written in place of a value (rendered compose
 * files, a child's masked output, the proxy's inspect answers), and redaction of text that came from
 * elsewhere (a child's stderr, a server message) before it is shown.
 */

/** What a masked secret value is shown as. */
export const maskText = '********'

/** `text` with every occurrence of each value (of 4 characters or more) replaced by `***`. */
export function redactValues(text: string, values: Iterable<string>): string {
  const sorted = [...new Set(values)].filter((value) => value.length >= 4).sort((a, b) => b.length - a.length)
  let result = text
  for (const value of sorted) result = result.split(value).join('***')
  return result
}
