/**
 * The connection to the engine: a keep-alive agent over the unix socket or TCP (with optional TLS
 * client settings) for ordinary requests, and fresh half-open-capable connections for upgrades.
 */
import type { ClientRequest, RequestOptions } from 'node:http'
import net from 'node:net'
import type { ProxyAddress, TlsMaterial } from './config.js'
import { http, loadHttps, loadTls } from './node-http.js'

/** How the proxy reaches the engine. */
export interface Backend {
  /** Starts a request over the keep-alive pool. */
  request(options: RequestOptions): ClientRequest
  /** Starts a request on a fresh connection of its own (for upgrades and tunnels). */
  requestOnOwnConnection(options: RequestOptions): ClientRequest
  /** Closes the pooled idle connections. */
  close(): void
}

/** Builds the backend for an address; `tls` switches a tcp:// address to HTTPS with client settings. */
export async function createBackend(address: ProxyAddress, tls?: TlsMaterial): Promise<Backend> {
  const agentOptions = { keepAlive: true, maxFreeSockets: 64, scheduling: 'lifo' as const }
  const target: RequestOptions =
    address.kind === 'unix'
      ? { socketPath: address.path }
      : { host: address.host || '127.0.0.1', port: address.port }
  if (tls) {
    const https = loadHttps()
    const tlsModule = loadTls()
    const tlsOptions = { ca: tls.ca, cert: tls.cert, key: tls.key }
    const agent = new https.Agent({ ...agentOptions, ...tlsOptions })
    return {
      request: (options) => https.request({ ...target, ...options, agent }),
      requestOnOwnConnection: (options) =>
        https.request({
          ...target,
          ...options,
          agent: false,
          createConnection: () =>
            tlsModule.connect({
              host: target.host!,
              port: Number(target.port),
              servername: target.host!,
              ...tlsOptions,
              allowHalfOpen: true,
            } as never),
        }),
      close: () => agent.destroy(),
    }
  }
  const agent = new http.Agent(agentOptions)
  const connect = () =>
    address.kind === 'unix'
      ? net.connect({ path: address.path, allowHalfOpen: true })
      : net.connect({ host: target.host!, port: address.port, allowHalfOpen: true })
  return {
    request: (options) => http.request({ ...target, ...options, agent }),
    requestOnOwnConnection: (options) =>
      http.request({ ...target, ...options, agent: false, createConnection: connect }),
    close: () => agent.destroy(),
  }
}
