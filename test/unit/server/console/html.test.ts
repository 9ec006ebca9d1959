/**
 * The console's one escaping function: hostile names, URLs and audit text render as inert text in text
 * nodes and in quoted attributes (no tag, no attribute break-out, no terminal or bidi control survives).
 */
import { describe, expect, it } from 'vitest'
import { escapeHtml, html } from '../../../../src/server/console/html.js'

describe('escapeHtml', () => {
  it.each([
    ['a script tag', '<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['an attribute break-out with double quotes', '" onmouseover="x', '&quot; onmouseover=&quot;x'],
    ['an attribute break-out with single quotes', "' autofocus onfocus='x", '&#39; autofocus onfocus=&#39;x'],
    ['an entity that would decode', '&lt;b&gt;', '&amp;lt;b&amp;gt;'],
    ['a terminal escape (clear screen)', '\u001b[2J', '\\x1b[2J'],
    ['a NUL and a DEL', 'a\u0000b\u007f', 'a\\x00b\\x7f'],
    ['a bidi override that reorders text', 'evil\u202etxt.exe', 'evil\\u202etxt.exe'],
    ['a line separator', 'one\u2028two', 'one\\u2028two'],
    ['a backslash (kept unambiguous)', 'C:\\path', 'C:\\\\path'],
    ['plain text', 'DATABASE_PASSWORD v3', 'DATABASE_PASSWORD v3'],
  ])('renders %s inert', (_attack, input, expected) => {
    expect(escapeHtml(input)).toBe(expected)
    // eslint-disable-next-line no-control-regex
    expect(escapeHtml(input)).not.toMatch(/[<>"'\u0000-\u001f\u007f-\u009f\u202a-\u202e]/)
  })
})

describe('html', () => {
  it('escapes every interpolation, in text and in attributes', () => {
    const name = '"><img src=x onerror=alert(1)>'
    const page = html`<a title="${name}">${name}</a>`.markup
    expect(page).toBe(
      '<a title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</a>',
    )
  })

  it('passes fragments built by html as they are, and escapes arrays item by item', () => {
    const items = ['<i>', '&']
    expect(html`<p>${html`<b>${items}</b>`}</p>`.markup).toBe('<p><b>&lt;i&gt;&amp;</b></p>')
  })

  it('renders nothing for null, undefined and booleans, numbers as text', () => {
    expect(html`${null}${undefined}${false}${true}${42}`.markup).toBe('42')
  })
})
