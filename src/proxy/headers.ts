/**
 * Header handling shared by plain forwarding and upgrades: hop-by-hop headers are dropped (including
 * those a Connection header names), raw responses for refusals are built here.
 */

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
])

/** Lengths of the hop-by-hop names: other names need no lower-casing to be kept. */
const hopByHopLengths = new Set([...hopByHop].map((name) => name.length))

/** Raw headers (flat `[name, value, ...]`) without hop-by-hop headers. */
export function endToEndHeaders(rawHeaders: readonly string[]): string[] {
  const kept: string[] = []
  let named: Set<string> | undefined
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (hopByHopLengths.has(name.length)) {
      const lowerCaseName = name.toLowerCase()
      if (hopByHop.has(lowerCaseName)) {
        if (lowerCaseName === 'connection') {
          named ??= new Set()
          for (const token of rawHeaders[i + 1]!.split(',')) named.add(token.trim().toLowerCase())
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
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
}

/** A complete raw HTTP/1.1 response with a JSON message that closes the connection. */
export function rawJsonResponse(status: number, message: string): string {
  const body = messageBody(message)
  return (
    `HTTP/1.1 ${status} ${reasonPhrases[status] ?? 'Error'}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}
