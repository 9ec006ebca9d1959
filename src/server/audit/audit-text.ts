/**
 * Text that reaches an audit row from a request (a client id, a project name in a query, a path) is
 * stored with its control characters escaped: C0, DEL, C1, the Unicode line separators and the bidi
 * controls become `\xNN` / `\uNNNN`, and a backslash becomes `\\`, so no stored row can move an
 * admin's cursor, clear the screen or fake a line, and the escape stays unambiguous.
 */

// eslint-disable-next-line no-control-regex
const unsafe = /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/** `text` with every control character escaped (see the module comment). */
export function escapeControls(text: string): string {
  return text.replace(unsafe, (char) => {
    if (char === '\\') return '\\\\'
    const code = char.charCodeAt(0)
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** Like escapeControls, for a nullable field. */
export function escapeNullable(text: string | null): string | null {
  return text === null ? null : escapeControls(text)
}
