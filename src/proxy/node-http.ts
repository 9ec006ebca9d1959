/**
 * Node's HTTP modules loaded through `require`: an ESM import of `node:http` builds its namespace and
 * so runs the lazy getters (WebSocket, EventSource, ...) that load undici, RSS the proxy never uses
 * (docs/proxy-performance.md). Types come from the ordinary type imports. Also Node's own HTTP parser (llhttp), which
 * the lean engine client uses.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** `node:http`, loaded without its lazy web-API getters. */
export const http = require('node:http') as typeof import('node:http')

/** `node:https`, loaded only when TLS is configured. */
export function loadHttps(): typeof import('node:https') {
  return require('node:https') as typeof import('node:https')
}

/** `node:tls`, loaded only when TLS is configured. */
export function loadTls(): typeof import('node:tls') {
  return require('node:tls') as typeof import('node:tls')
}

/** The parts of Node's HTTPParser (from `_http_common`, the parser node:http itself uses) used here. */
export interface Parser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void
  execute(data: Buffer): number | Error
  finish(): number | Error | undefined
  close(): void
  [slot: number]: unknown
}
/** What Node's parser passes to the `kOnHeadersComplete` slot, positionally (Node's order, not ours). */
export type HeadersCompleteArgs = [
  major: number,
  minor: number,
  headers: string[] | undefined,
  method: unknown,
  url: unknown,
  status: number,
  statusMessage: string,
  upgrade: boolean,
  keepAlive: boolean,
]
export interface ParserConstructor {
  new (): Parser
  REQUEST: number
  RESPONSE: number
  kOnMessageBegin: number
  kOnHeaders: number
  kOnHeadersComplete: number
  kOnBody: number
  kOnMessageComplete: number
  kLenientNone: number
}

function loadParser(): ParserConstructor | undefined {
  try {
    const { HTTPParser } = require('_http_common') as { HTTPParser?: ParserConstructor }
    const usable =
      typeof HTTPParser === 'function' &&
      [
        HTTPParser.kOnMessageBegin,
        HTTPParser.kOnHeaders,
        HTTPParser.kOnHeadersComplete,
        HTTPParser.kOnBody,
        HTTPParser.kOnMessageComplete,
      ].every((slot) => typeof slot === 'number')
    return usable ? HTTPParser : undefined
  } catch {
    return undefined
  }
}

/** Node's HTTP parser, or undefined on a Node that no longer exposes it (callers then use node:http). */
export const HTTPParser = loadParser()

/** llhttp's method names by the number its parser reports, or undefined where Node no longer has them. */
export const parserMethods = ((): readonly string[] | undefined => {
  try {
    const { methods } = require('_http_common') as { methods?: unknown }
    return Array.isArray(methods) && methods.every((name) => typeof name === 'string')
      ? (methods as string[])
      : undefined
  } catch {
    return undefined
  }
})()

/** The hooks head-watch.ts needs in the parser node:http's server reads a client connection with. */
export interface ServerParserHooks {
  /** Calls `listener` after each chunk the parser read from the socket natively (not from JavaScript). */
  afterEachRead(listener: () => void): void
  /** A copy of the chunk the parser is working through (during its callbacks only). */
  currentChunk(): Buffer
}

interface ServerParser {
  getCurrentBuffer?: unknown
  [slot: number]: unknown
}

/**
 * The parser's hooks on the server connection `socket`, or undefined where Node no longer has them.
 * Node internals (docs/decisions.md): `socket.parser`, the `kOnExecute` slot node:http's server fills
 * (called after each natively read chunk), and `getCurrentBuffer()`.
 */
export function serverParserOf(socket: object): ServerParserHooks | undefined {
  const slot = (HTTPParser as { kOnExecute?: unknown } | undefined)?.kOnExecute
  const parser = (socket as { parser?: ServerParser | null }).parser
  if (typeof slot !== 'number' || !parser) return undefined
  const original = parser[slot]
  const getCurrentBuffer = parser.getCurrentBuffer
  if (typeof original !== 'function' || typeof getCurrentBuffer !== 'function') return undefined
  return {
    afterEachRead(listener) {
      parser[slot] = (ret: unknown) => {
        const result: unknown = original.call(parser, ret)
        listener()
        return result
      }
    },
    currentChunk: () => getCurrentBuffer.call(parser) as Buffer,
  }
}
