/**
 * The response headers of console pages: the Content-Security-Policy is read back with a parser of the
 * CSP grammar (directives split on `;`, values on spaces) so each directive is checked on its own, and
 * no answer, page or redirect, may be cached or framed.
 */
import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy, pageResponse, redirect } from '../../../../src/server/console/headers.js'
import { html } from '../../../../src/server/console/html.js'

function directives(policy: string): Map<string, string[]> {
  const parsed = new Map<string, string[]>()
  for (const directive of policy.split(';')) {
    const [name, ...values] = directive.trim().split(/\s+/)
    if (name) {
      expect(parsed.has(name.toLowerCase())).toBe(false)
      parsed.set(name.toLowerCase(), values)
    }
  }
  return parsed
}

describe('console headers', () => {
  it('allows nothing inline and nothing from elsewhere', () => {
    const csp = directives(contentSecurityPolicy)
    expect(csp.get('default-src')).toEqual(["'none'"])
    for (const name of ['script-src', 'style-src', 'img-src', 'form-action'])
      expect(csp.get(name)).toEqual(["'self'"])
    expect(csp.get('frame-ancestors')).toEqual(["'none'"])
    expect(csp.get('base-uri')).toEqual(["'none'"])
    expect(contentSecurityPolicy).not.toMatch(/unsafe-|\*|data:|http:/)
  })

  it('sends every page uncached, unframed, unsniffed, as UTF-8 HTML', () => {
    const response = pageResponse(200, html`<p>${'<script>x</script>'}</p>`)
    expect(response.text?.startsWith('<!doctype html>\n')).toBe(true)
    expect(response.text).not.toContain('<script>')
    expect(response.headers).toMatchObject({
      'content-security-policy': contentSecurityPolicy,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      'content-type': 'text/html; charset=utf-8',
    })
  })

  it('redirects with 303 and the same protections; extra headers are added', () => {
    const response = redirect('/console/projects', { 'set-cookie': 'a=b' })
    expect(response.status).toBe(303)
    expect(response.headers).toMatchObject({
      location: '/console/projects',
      'cache-control': 'no-store',
      'set-cookie': 'a=b',
    })
  })
})
