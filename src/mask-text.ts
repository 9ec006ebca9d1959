/**
 * How a masked secret value looks, in every place that masks one: rendered compose files, a child's
 * masked output, the proxy's answers, and text from elsewhere redacted before it is shown.
 */

/** What a masked secret value is shown as. */
export const maskText = '********'

/** Values shorter than this are not masked (they would mask ordinary words and digits). */
export const minimumMaskedLength = 4
