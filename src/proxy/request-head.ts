/**
 * The request head the proxy writes to the engine. The proxy owns its framing: the head carries the
 * proxy's own `Content-Length` (a body of known length) or `Transfer-Encoding: chunked` (a body of
 * unknown length), never a framing header of the client's. Every name must be an RFC 9110 token and
 * every value free of control characters (HTAB aside), so a head can never split into two requests;
 * test/unit/proxy/request-head.test.ts fuzzes this against Node's own parser.
 */
import { VaultError } from '../errors.js'
import type { EngineRequest } from './exchange.js'

const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// eslint-disable-next-line no-control-regex
const unsafeValue = /[\u0000-\u0008\u000a-\u001f\u007f]/
const methodToken = /^[A-Z][A-Z0-9_-]*$/
const targetCharacters = /^\/[\u0021-\u007e]*$/
const framingNames = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
])

/** A head the proxy refuses to write (the exchange fails before a byte reaches the engine). */
export class UnsafeHeadError extends VaultError {
  override readonly code: string = 'ERR_UNSAFE_HEAD'
  override name = 'UnsafeHeadError'
}

/** How the body of a request travels: none, the proxy's own Content-Length, or chunked. */
export function bodyFraming(request: Pick<EngineRequest, 'body' | 'bodyLength'>): string {
  if (request.body === undefined) return ''
  return request.bodyLength === undefined
    ? 'Transfer-Encoding: chunked\r\n'
    : `Content-Length: ${request.bodyLength}\r\n`
}

/**
 * The complete head (`METHOD target HTTP/1.1`, headers, the proxy's framing, blank line), as latin1.
 * `extra` is added verbatim after the headers (the upgrade path's `Connection: Upgrade`).
 */
export function requestHead(request: EngineRequest, extra = ''): string {
  if (!methodToken.test(request.method)) throw new UnsafeHeadError(`unsafe method ${request.method}`)
  if (!targetCharacters.test(request.target)) throw new UnsafeHeadError('unsafe request target')
  let head = `${request.method} ${request.target} HTTP/1.1\r\n`
  let hasHost = false
  const headers = request.headers
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!
    const value = headers[i + 1]!
    if (!token.test(name) || unsafeValue.test(value)) throw new UnsafeHeadError(`unsafe header ${name}`)
    const lowerCaseName = name.toLowerCase()
    if (framingNames.has(lowerCaseName)) throw new UnsafeHeadError(`framing header ${name}`)
    if (lowerCaseName === 'host') {
      if (hasHost) throw new UnsafeHeadError('two Host headers')
      hasHost = true
    }
    head += `${name}: ${value}\r\n`
  }
  if (!hasHost) head += 'Host: localhost\r\n'
  return `${head}${bodyFraming(request)}${extra}\r\n`
}
