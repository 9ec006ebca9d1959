/**
 * How a masked secret value looks, in every place that masks one: rendered compose files, a child's
 * masked output, the proxy's answers, and text from elsewhere redacted before it is shown; and the
 * redaction of known values from such text.
 */

/** What a masked secret value is shown as. */
export const maskText = '********'

/** Values shorter than this are not masked (they would mask ordinary words and digits). */
export const minimumMaskedLength = 4

/**
 * A function that replaces every occurrence of each value (long enough to be masked) in a text with the
 * mask text; the longest values first, so that a value containing another is masked whole.
 */
export function valueRedactor(values: Iterable<string>): (text: string) => string {
  const sorted = [...new Set(values)]
    .filter((value) => value.length >= minimumMaskedLength)
    .sort((a, b) => b.length - a.length)
  return (text) => {
    let result = text
    for (const value of sorted) if (result.includes(value)) result = result.split(value).join(maskText)
    return result
  }
}

/** `text` with every occurrence of each value (long enough to be masked) replaced by the mask text. */
export function redactValues(text: string, values: Iterable<string>): string {
  return valueRedactor(values)(text)
}
