/**
 * Header handling shared by plain forwarding and upgrades. The proxy owns the framing of everything it
 * forwards: hop-by-hop headers and the framing headers (Content-Length, Transfer-Encoding) are always
 * dropped and re-created by the proxy, and a Connection header may name further end-to-end headers to
 * drop but never a framing or routing header (Content-Length, Transfer-Encoding, Host, Upgrade,
 * Connection). Raw responses for refusals are built here.
 */

/** Dropped from every forwarded message; the proxy writes its own framing and connection headers. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'expect',
])

/** Headers a `Connection` header can never remove (it used to be a way to strip Content-Length). */
const notNameable = new Set(['content-length', 'transfer-encoding', 'host', 'upgrade', 'connection'])

/** Lengths of the hop-by-hop names: other names need no lower-casing to be kept. */
const hopByHopLengths = new Set([...hopByHop].map((name) => name.length))

/** Raw headers (flat `[name, value, ...]`) without hop-by-hop and framing headers. */
export function endToEndHeaders(rawHeaders: readonly string[]): string[] {
  const kept: string[] = []
  let named: Set<string> | undefined
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (hopByHopLengths.has(name.length)) {
      const lowerCaseName = name.toLowerCase()
      if (hopByHop.has(lowerCaseName)) {
        if (lowerCaseName === 'connection') {
          for (const token of rawHeaders[i + 1]!.split(',')) {
            const listed = token.trim().toLowerCase()
            if (!notNameable.has(listed)) (named ??= new Set()).add(listed)
          }
        }
        continue
      }
    }
    kept.push(name, rawHeaders[i + 1]!)
  }
  if (named === undefined) return kept
  const listed = named
  return kept.filter((_, i) => !listed.has(kept[i - (i % 2)]!.toLowerCase()))
}

/**
 * The Content-Length of a parsed message (llhttp has already refused differing or malformed ones) when
 * its body was framed by it, i.e. it has no Transfer-Encoding; else undefined.
 */
export function framedLength(rawHeaders: readonly string[]): string | undefined {
  let length: string | undefined
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') return undefined
    if (name.length === 14 && name.toLowerCase() === 'content-length') length = rawHeaders[i + 1]!.trim()
  }
  return length
}

/** The JSON body the Docker CLI prints as `Error response from daemon: <message>`. */
export function messageBody(message: string): string {
  return `${JSON.stringify({ message })}\n`
}

/** The refusal message for a method and canonical path. */
export function refusalMessage(method: string, path: string, reason = 'no rule allows it'): string {
  return `vault proxy refused ${method} ${path}: ${reason}`
}

/** The reason logged and answered (with a 502) when the engine cannot be reached. */
export function unreachableReason(error: NodeJS.ErrnoException): string {
  return `the engine is unreachable (${error.code ?? error.message})`
}

const reasonPhrases: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  505: 'HTTP Version Not Supported',
}

/** A complete raw HTTP/1.1 response with a JSON message that closes the connection. */
export function rawJsonResponse(status: number, message: string): string {
  const body = messageBody(message)
  return (
    `HTTP/1.1 ${status} ${reasonPhrases[status] ?? 'Error'}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}
