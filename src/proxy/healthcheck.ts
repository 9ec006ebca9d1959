/**
 * The health check of a running proxy, for a container HEALTHCHECK: `GET /_ping` on its frontend.
 * Healthy when the proxy answers with a status below 500 (a 403 still proves the proxy is up; a 502
 * means it cannot reach the engine).
 */
import type { ProxyAddress } from './config.js'
import { http, loadHttps } from './node-http.js'

export interface HealthResult {
  healthy: boolean
  status?: number
  reason?: string
}

/** Probes a frontend address within `timeoutMs`. Over TLS the certificate is not verified. */
export async function checkProxyHealth(
  address: ProxyAddress,
  useTls: boolean,
  timeoutMs = 3_000,
): Promise<HealthResult> {
  const target =
    address.kind === 'unix'
      ? { socketPath: address.path }
      : {
          host:
            address.host === '' || address.host === '0.0.0.0'
              ? '127.0.0.1'
              : address.host === '::'
                ? '::1'
                : address.host,
          port: address.port,
        }
  const request = useTls ? loadHttps().request : http.request
  return new Promise((resolve) => {
    const req = request(
      { ...target, method: 'GET', path: '/_ping', timeout: timeoutMs, rejectUnauthorized: false },
      (res) => {
        res.resume()
        const status = res.statusCode ?? 0
        resolve({
          healthy: status < 500,
          status,
          reason: status < 500 ? undefined : `the proxy answered ${status}`,
        })
      },
    )
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', (error) => resolve({ healthy: false, reason: error.message }))
    req.end()
  })
}
