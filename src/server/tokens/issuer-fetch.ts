/**
 * The vault server's only outbound requests for OIDC: GET of an issuer's discovery document and JWKS.
 * Bounded: an overall timeout, a body cap, JSON only, redirects followed only within the issuer's own
 * origin (at most three), never to another host. The URLs come from an admin's trust (an https issuer,
 * or an explicitly written loopback one) and from that issuer's own discovery document.
 */
import { VaultError } from '../../errors.js'

/** The issuer could not be asked (unreachable, slow, oversized, not JSON, a redirect elsewhere). */
export class IssuerUnavailableError extends VaultError {
  override name = 'IssuerUnavailableError'
  override readonly code: string = 'ERR_ISSUER_UNAVAILABLE'
}

export interface IssuerFetchOptions {
  /** Overall time for one document, redirects included (default 5 s). */
  timeoutMs?: number
  /** Largest body accepted (default 256 KiB). */
  maxBytes?: number
  /** The fetch used (tests inject one); default the global fetch. */
  fetch?: typeof fetch
}

export interface IssuerDocument {
  body: unknown
  /** Seconds the answer may be cached (Cache-Control max-age; 0 for no-store/no-cache), when it says. */
  maxAgeSeconds?: number
}

const maxRedirects = 3

/** GETs `url` (same origin as `origin`) and parses its JSON body within the bounds. */
export async function fetchIssuerJson(
  url: URL,
  origin: string,
  options: IssuerFetchOptions = {},
): Promise<IssuerDocument> {
  const signal = AbortSignal.timeout(options.timeoutMs ?? 5000)
  const send = options.fetch ?? fetch
  let target = url
  try {
    for (let hop = 0; ; hop++) {
      if (target.origin !== origin) {
        throw new IssuerUnavailableError(`${url.href} leads to another origin (${target.origin})`)
      }
      const response = await send(target, {
        redirect: 'manual',
        signal,
        headers: { accept: 'application/json' },
      })
      if (response.status >= 300 && response.status < 400 && hop < maxRedirects) {
        const location = response.headers.get('location')
        await response.body?.cancel()
        if (!location) throw new IssuerUnavailableError(`${target.href} redirects without a location`)
        target = new URL(location, target)
        continue
      }
      if (response.status !== 200) {
        await response.body?.cancel()
        throw new IssuerUnavailableError(`${target.href} answered HTTP ${response.status}`)
      }
      const text = await boundedText(response, options.maxBytes ?? 256 * 1024, target)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        throw new IssuerUnavailableError(`${target.href} did not answer JSON`)
      }
      return { body, maxAgeSeconds: maxAge(response.headers.get('cache-control')) }
    }
  } catch (error) {
    if (error instanceof IssuerUnavailableError) throw error
    const reason = signal.aborted ? 'timed out' : error instanceof Error ? error.message : String(error)
    throw new IssuerUnavailableError(`${url.href} could not be fetched: ${reason}`)
  }
}

async function boundedText(response: Response, maxBytes: number, url: URL): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > maxBytes) {
    await response.body?.cancel()
    throw new IssuerUnavailableError(`${url.href} answered more than ${maxBytes} bytes`)
  }
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = response.body?.getReader()
  if (!reader) return ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw new IssuerUnavailableError(`${url.href} answered more than ${maxBytes} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Cache-Control's max-age in seconds; 0 for no-store or no-cache; undefined when it says neither. */
export function maxAge(header: string | null): number | undefined {
  if (!header) return undefined
  const directives = header
    .toLowerCase()
    .split(',')
    .map((part) => part.trim())
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return 0
  const found = directives.find((directive) => /^max-age=\d+$/.test(directive))
  return found === undefined ? undefined : Number(found.slice(8))
}
