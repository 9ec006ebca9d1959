/** Statistics for randomness tests. */

/** Pearson's chi-square statistic of observed counts against a uniform expectation. */
export function chiSquareUniform(counts: number[]): number {
  const total = counts.reduce((sum, count) => sum + count, 0)
  const expected = total / counts.length
  return counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0)
}

/**
 * Upper critical value of the chi-square distribution with `df` degrees of freedom for the standard
 * normal quantile `z` (Wilson–Hilferty approximation); z = 4.75 is a one-in-a-million false alarm.
 */
export function chiSquareCritical(df: number, z = 4.75): number {
  const a = 2 / (9 * df)
  return df * (1 - a + z * Math.sqrt(a)) ** 3
}

/** Counts of each character of `alphabet` in `text`; a character outside it throws. */
export function characterCounts(text: string, alphabet: string): number[] {
  const index = new Map([...alphabet].map((char, i) => [char, i]))
  const counts = new Array<number>(alphabet.length).fill(0)
  for (const char of text) {
    const i = index.get(char)
    if (i === undefined) throw new Error(`character ${JSON.stringify(char)} is outside the charset`)
    counts[i]!++
  }
  return counts
}
