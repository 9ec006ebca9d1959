/**
 * The connection to the engine: ordinary requests go over a keep-alive pool (the lean pool of
 * engine-pool.ts for a unix socket or plain TCP; a node:https agent with the TLS client settings),
 * upgrades over fresh half-open-capable connections made with node:http(s).
 */
import type { ClientRequest, RequestOptions } from 'node:http'
import net from 'node:net'
import type { ProxyAddress, TlsMaterial } from './config.js'
import { createEnginePool } from './engine-pool.js'
import { exchangeViaRequest, type EngineRequest, type Exchange, type ExchangeHandlers } from './exchange.js'
import { http, HTTPParser, loadHttps, loadTls } from './node-http.js'

/** The largest engine response head accepted (docker build answers with big headers too). */
const maxHeaderSize = 1 << 20

/** How the proxy reaches the engine. */
export interface Backend {
  /** Sends one ordinary request over the keep-alive pool. */
  exchange(request: EngineRequest, handlers: ExchangeHandlers): Exchange
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
    const request = (options: RequestOptions) => https.request({ ...target, ...options, agent })
    return {
      exchange: (engineRequest, handlers) =>
        exchangeViaRequest(request, engineRequest, handlers, maxHeaderSize),
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
  const connect = () =>
    address.kind === 'unix'
      ? net.connect({ path: address.path, allowHalfOpen: true })
      : net.connect({ host: target.host!, port: address.port, allowHalfOpen: true })
  const requestOnOwnConnection = (options: RequestOptions) =>
    http.request({ ...target, ...options, agent: false, createConnection: connect })
  if (HTTPParser) {
    const pooledConnection = () =>
      address.kind === 'unix'
        ? net.connect({ path: address.path })
        : net.connect({ host: target.host!, port: address.port, noDelay: true })
    const pool = createEnginePool(HTTPParser, pooledConnection, maxHeaderSize, agentOptions.maxFreeSockets)
    return { exchange: pool.exchange, requestOnOwnConnection, close: pool.close }
  }
  const agent = new http.Agent(agentOptions)
  const request = (options: RequestOptions) => http.request({ ...target, ...options, agent })
  return {
    exchange: (engineRequest, handlers) =>
      exchangeViaRequest(request, engineRequest, handlers, maxHeaderSize),
    requestOnOwnConnection,
    close: () => agent.destroy(),
  }
}
