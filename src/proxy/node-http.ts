/**
 * Node's HTTP modules loaded through `require`: an ESM import of `node:http` builds its namespace and
 * so runs the lazy getters (WebSocket, EventSource, ...) that load undici, about 13 MB of RSS the proxy
 * never uses. Types come from the ordinary type imports.
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
