/**
 * Per-client rule sets, the pure part: who is asking (source address, client-certificate subject, the
 * frontend the connection came in on) chooses the rule set by the first selector that matches, in the
 * order they were written. No selector matching means no rule set: the client is refused.
 */
import { UsageError } from '../errors.js'
import { BlockList, isIP } from 'node:net'

/** What the proxy knows about a connection when it chooses a rule set. */
export interface ClientIdentity {
  /** The peer's IP address (absent on a unix socket). */
  address?: string
  /** The verified client certificate's subject, as node:tls gives it (absent without mutual TLS). */
  certSubject?: Readonly<Record<string, string | readonly string[] | undefined>>
  /** The frontend address the connection arrived on, as configured (`tcp://:2375`, `unix:///run/p.sock`). */
  frontend: string
}

export type ClientMatcherKind = 'source' | 'cert' | 'frontend'

/** One test on a client's identity. */
export interface ClientMatcher {
  kind: ClientMatcherKind
  /** The value as written: `10.0.0.0/8`, `CN=dashboard,O=acme`, `tcp://127.0.0.1:2376`. */
  value: string
  matches(identity: ClientIdentity): boolean
}

/** A matcher and the rule set it chooses, with where it was written. */
export interface ClientSelector {
  matcher: ClientMatcher
  ruleSet: string
  source: string
  line: number
}

/** A client matcher that cannot be used; the message says why. */
export class ClientMatcherError extends UsageError {
  override name = 'ClientMatcherError'
  override readonly code: string = 'ERR_PROXY_CLIENT'
}

const ipv4Mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i

function plainAddress(address: string): string {
  return ipv4Mapped.exec(address)?.[1] ?? address
}

function sourceMatcher(value: string): ClientMatcher['matches'] {
  const [address = '', prefixText, extra] = value.split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) {
    throw new ClientMatcherError(`"${value}" is not an IP address or a CIDR such as 10.0.0.0/8 or fd00::/8`)
  }
  const maxPrefix = family === 4 ? 32 : 128
  const prefix = prefixText === undefined ? maxPrefix : Number(prefixText)
  if (!/^\d{1,3}$/.test(prefixText ?? '0') || prefix > maxPrefix) {
    throw new ClientMatcherError(`"${value}": the prefix length must be 0 to ${maxPrefix}`)
  }
  const list = new BlockList()
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6')
  const zone = zoneOf(address)
  return (identity) => {
    if (identity.address === undefined) return false
    const peer = plainAddress(identity.address)
    const peerFamily = isIP(peer)
    if (zone !== undefined && zoneOf(peer) !== zone) return false
    return peerFamily !== 0 && list.check(peer, peerFamily === 4 ? 'ipv4' : 'ipv6')
  }
}

/**
 * The zone id of an IPv6 address (`eth0` in `fe80::1%eth0`; node:net gives a link-local peer's with its
 * interface). BlockList ignores it, so a zone written in a rule is compared here: fe80::1 on another
 * link is another host.
 */
function zoneOf(address: string): string | undefined {
  const percent = address.indexOf('%')
  return percent < 0 ? undefined : address.slice(percent + 1)
}

/** The error for a subject selector that is not one. */
export const notASubject = (value: string) =>
  `"${value}" is not a certificate subject such as CN=dashboard or CN=updater,O=acme`

/**
 * The attributes of a subject written as `CN=dashboard,O=acme`, names as written (in `client cert`
 * lines, PROXY_CLIENTS and `vault proxy check --client cert=...`); undefined when it is not one.
 */
export function parseSubjectText(text: string): [name: string, attribute: string][] | undefined {
  const attributes: [string, string][] = []
  for (const part of text.split(',')) {
    const equals = part.indexOf('=')
    const name = part.slice(0, equals).trim()
    const attribute = part.slice(equals + 1).trim()
    if (equals <= 0 || !/^[A-Za-z][A-Za-z0-9.]*$/.test(name) || attribute === '') return undefined
    attributes.push([name, attribute])
  }
  return attributes
}

/**
 * A subject matcher: each attribute written must be one of the certificate's values for it (an OU=ops
 * selector matches OU=dev,OU=ops), except CN, which must be the certificate's only CN: one naming two
 * (evil and dashboard) is matched by neither, since the CA may have checked only one of them. Attribute
 * names are compared without case, as RFC 4514 has them (`cn=dashboard` is `CN=dashboard`); node:tls
 * names them as OpenSSL does (CN, O, OU, emailAddress).
 */
function certMatcher(value: string): ClientMatcher['matches'] {
  const attributes = parseSubjectText(value)
  if (!attributes) throw new ClientMatcherError(notASubject(value))
  const wanted = attributes.map(([name, attribute]) => [name.toLowerCase(), attribute] as const)
  return (identity) => {
    const subject = identity.certSubject
    if (!subject) return false
    return wanted.every(([name, attribute]) => {
      const actual = Object.entries(subject).find(([key]) => key.toLowerCase() === name)?.[1]
      if (typeof actual === 'string') return actual === attribute
      return name !== 'cn' && (actual?.includes(attribute) ?? false)
    })
  }
}

/** A frontend address without its unix-socket `?mode=` option or IPv6 brackets, for comparison. */
export function frontendKey(address: string): string {
  return address.replace(/\?mode=[0-7]+$/, '').replace(/^tcp:\/\/\[([0-9a-fA-F:.]*)\]/, 'tcp://$1')
}

function frontendMatcher(value: string): ClientMatcher['matches'] {
  if (!/^(?:tcp|unix):\/\/\S+$/.test(value)) {
    throw new ClientMatcherError(`"${value}" is not a frontend address (tcp://host:port or unix:///path)`)
  }
  const key = frontendKey(value)
  return (identity) => frontendKey(identity.frontend) === key
}

/** Builds a matcher; throws ClientMatcherError for a value its kind cannot use. */
export function parseClientMatcher(kind: string, value: string): ClientMatcher {
  const builders: Record<ClientMatcherKind, (value: string) => ClientMatcher['matches']> = {
    source: sourceMatcher,
    cert: certMatcher,
    frontend: frontendMatcher,
  }
  const build = builders[kind as ClientMatcherKind]
  if (!build) throw new ClientMatcherError(`"${kind}" is not a client kind: use source, cert or frontend`)
  return { kind: kind as ClientMatcherKind, value, matches: build(value) }
}

/** The first selector whose matcher accepts the identity, or undefined (the client is refused). */
export function selectRuleSet(
  selectors: readonly ClientSelector[],
  identity: ClientIdentity,
): ClientSelector | undefined {
  return selectors.find((selector) => selector.matcher.matches(identity))
}

/** `source 127.0.0.2`, `cert CN=x`, `frontend unix:///run/p.sock`: the identity a selector is about. */
export function describeIdentity(identity: ClientIdentity): string {
  const parts = [`frontend ${identity.frontend}`]
  if (identity.address !== undefined) parts.unshift(`source ${plainAddress(identity.address)}`)
  const commonName = identity.certSubject?.CN
  if (commonName !== undefined) parts.push(`cert CN=${String(commonName)}`)
  return parts.join(', ')
}

/**
 * Reads `PROXY_CLIENTS`: entries separated by `;` or new lines, each `KIND VALUE RULESET` (the value
 * may hold blanks: the kind is the first word, the rule set the last). Throws ClientMatcherError
 * naming the entry, or when there is no entry (a blank value would otherwise mean every client).
 */
export function parseClientsSetting(text: string, source = 'PROXY_CLIENTS'): ClientSelector[] {
  const selectors: ClientSelector[] = []
  for (const [index, rawEntry] of text.split(/[;\n]/).entries()) {
    const entry = rawEntry.trim()
    if (entry === '') continue
    const words = entry.split(/[\t ]+/)
    if (words.length < 3) {
      throw new ClientMatcherError(
        `${source} entry ${index + 1} "${entry}" is not "KIND VALUE RULESET", e.g. "source 10.0.0.0/8 monitoring"`,
      )
    }
    const kind = words[0]!
    const ruleSet = words.at(-1)!
    const value = entry.slice(kind.length, entry.length - ruleSet.length).trim()
    try {
      selectors.push({ matcher: parseClientMatcher(kind, value), ruleSet, source, line: index + 1 })
    } catch (error) {
      if (error instanceof ClientMatcherError)
        throw new ClientMatcherError(`${source} entry ${index + 1}: ${error.message}`)
      throw error
    }
  }
  if (selectors.length === 0)
    throw new ClientMatcherError(
      `${source} holds no entry: give "KIND VALUE RULESET" entries or leave it unset`,
    )
  return selectors
}
