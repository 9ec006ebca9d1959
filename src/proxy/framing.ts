/**
 * What the proxy accepts as the framing of a client request, for plain forwarding and upgrades alike:
 * HTTP/1.0 or 1.1, Content-Length or `Transfer-Encoding: chunked` (never both, never another coding),
 * one Host, no disguised framing header, no body on GET or HEAD. Node's strict parser has refused
 * malformed heads before; this refuses what it accepts but the proxy cannot forward unambiguously.
 */
import type { ClientHead } from './client-side.js'

/** Names that, with `_` read as `-`, are framing headers: a backend that normalises them would desync. */
const disguisedFraming = /^(?:content_length|transfer_encoding)$/i

/** Why a request's version or framing cannot be forwarded safely (status and reason), or undefined. */
export function framingProblem(req: ClientHead): [number, string] | undefined {
  if (req.httpVersion !== '1.1' && req.httpVersion !== '1.0')
    return [505, `HTTP/${req.httpVersion} is not supported`]
  const transferEncoding = req.headers['transfer-encoding']
  const contentLength = req.headers['content-length']
  if (transferEncoding !== undefined) {
    if (contentLength !== undefined) return [400, 'Content-Length together with Transfer-Encoding']
    if (transferEncoding.trim().toLowerCase() !== 'chunked')
      return [400, 'only "Transfer-Encoding: chunked" is accepted']
  } else if (contentLength !== undefined && !/^[0-9]{1,15}$/.test(contentLength)) {
    return [400, 'the Content-Length is not one decimal number']
  }
  let hosts = 0
  const raw = req.rawHeaders
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++
    else if (name.includes('_') && disguisedFraming.test(name))
      return [400, `a disguised framing header ${name}`]
  }
  if (hosts > 1) return [400, 'more than one Host header']
  if ((req.method === 'GET' || req.method === 'HEAD') && bodyLengthOf(req) !== 0)
    return [400, `a ${req.method} request with a body`]
  return undefined
}

/** The body length to announce upstream: a number (Content-Length), 'chunked', or 0 (no body). */
export function bodyLengthOf(req: ClientHead): number | 'chunked' {
  if (req.headers['transfer-encoding'] !== undefined) return 'chunked'
  return Number(req.headers['content-length'] ?? 0)
}
