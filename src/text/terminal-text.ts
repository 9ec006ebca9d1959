/**
 * Text for a terminal that cannot steer it: C0 controls (ESC, CR, BS, ...), DEL, C1 controls (0x80-0x9f,
 * which some terminals read as CSI and friends) and the Unicode characters that reorder or break lines
 * (bidi overrides and isolates, U+2028/2029) are shown as visible escapes (`\x1b`, `\r`, `\u202e`).
 * Whatever a server, a database row or a compose file holds, it cannot clear the screen, set the title,
 * move the cursor or forge a row. Backslashes are left alone: normal text reads unchanged.
 */

/** Everything that steers a terminal, newline and tab included. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const controlInField = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
/** The same except newline and tab, for a block of lines. */
const controlInLines =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function visible(char: string): string {
  const known = named[char]
  if (known) return known
  const code = char.charCodeAt(0)
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`
}

/** One field (a table cell, a message line): every control character escaped, newlines included. */
export function escapeField(text: string): string {
  return text.replace(controlInField, visible)
}

/** A block of lines: every control character escaped except newline and tab. */
export function escapeLines(text: string): string {
  return text.replace(controlInLines, visible)
}

/** JSON text with the controls JSON.stringify leaves raw (DEL, C1, bidi, U+2028/2029) as `\u` escapes. */
export function escapeJsonText(json: string): string {
  return json.replace(
    /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/**
 * A template tag for a line of human output built from outside text: every interpolated value is
 * escaped as a field, so a value cannot end the line early or forge the next one.
 */
export function fields(strings: TemplateStringsArray, ...values: unknown[]): string {
  return strings.reduce((line, part, index) =>
    index === 0 ? part : `${line}${escapeField(String(values[index - 1]))}${part}`,
  )
}
