/**
 * The response headers of console pages: a strict Content-Security-Policy (nothing inline, scripts,
 * styles and images only from this server, forms only to it, never framed), X-Frame-Options DENY,
 * nosniff, no referrer, and `no-store` so no page (and no revealed value) lands in a cache.
 */
import type { ApiResponse } from '../http/api.js'
import type { Html } from './html.js'

export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

/** Headers every console answer carries. */
export const pageHeaders: Record<string, string> = {
  'content-security-policy': contentSecurityPolicy,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-store',
}

/** An HTML page answer. */
export function pageResponse(status: number, page: Html, headers: Record<string, string> = {}): ApiResponse {
  return {
    status,
    text: `<!doctype html>\n${page.markup}`,
    headers: { ...pageHeaders, 'content-type': 'text/html; charset=utf-8', ...headers },
  }
}

/** A 303 See Other to a console path (after a form post, or to the sign-in page). */
export function redirect(location: string, headers: Record<string, string> = {}): ApiResponse {
  return { status: 303, text: '', headers: { ...pageHeaders, location, ...headers } }
}
