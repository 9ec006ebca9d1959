/**
 * The console's one escaping function and the `html` template tag built on it. Every interpolated value
 * goes through `escapeHtml` (control and bidi characters made visible as `\xNN` / `\uNNNN`, then the
 * five HTML-special characters as entities), unless it is itself an `Html` fragment built by this tag,
 * so hostile names, audit text and values render inert in text and in quoted attributes alike.
 */
import { escapeControls } from '../audit/audit-text.js'

/** A fragment of markup that is already safe (only `html` and `joinHtml` make one). */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup
  }
}

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text made safe for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return escapeControls(text).replace(/[&<>"']/g, (char) => entities[char]!)
}

type Interpolated = Html | string | number | boolean | null | undefined | Interpolated[]

function render(value: Interpolated): string {
  if (value === null || value === undefined || value === false || value === true) return ''
  if (value instanceof Html) return value.markup
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/** Tagged template: the literal parts are markup, every interpolation is escaped (Html passes as is). */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  let markup = strings[0]!
  values.forEach((value, index) => {
    markup += render(value) + strings[index + 1]!
  })
  return new Html(markup)
}
