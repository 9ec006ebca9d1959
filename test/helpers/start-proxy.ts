/**
 * Test set-up shared by the proxy tests: a proxy server with the default rules over a given backend, or
 * with rule sets from PROXY_* settings over an engine socket, listening on an ephemeral loopback port.
 */
import type net from 'node:net'
import { createBackend, type Backend } from '../../src/proxy/backend.js'
import type { TlsMaterial } from '../../src/proxy/config.js'
import { resolveRuleSetConfig, resolveRules, type ProxySettings } from '../../src/proxy/config.js'
import { createLogger, type ProxyLogger } from '../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../src/proxy/server.js'

/** Builds a proxy (silent logger unless one is given) and listens on 127.0.0.1:0. */
export async function startProxy(
  backend: Backend,
  options: { logger?: ProxyLogger; tls?: TlsMaterial } = {},
): Promise<{ proxy: ProxyServer; port: number }> {
  const proxy = await createProxyServer({
    rules: resolveRules({}),
    backend,
    logger: options.logger ?? createLogger(0, 'text'),
    tls: options.tls,
  })
  return listening(proxy)
}

/** A silent proxy over the engine at `engineSocket`, its rule sets from `settings` (as PROXY_* give them). */
export async function startProxyWithSettings(
  engineSocket: string,
  settings: ProxySettings,
): Promise<{ proxy: ProxyServer; port: number }> {
  const proxy = await createProxyServer({
    ruleSets: resolveRuleSetConfig(settings),
    backend: await createBackend({ kind: 'unix', path: engineSocket, mode: 0o660 }),
    logger: createLogger(0, 'text', () => {}),
  })
  return listening(proxy)
}

async function listening(proxy: ProxyServer): Promise<{ proxy: ProxyServer; port: number }> {
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  return { proxy, port: (proxy.server.address() as net.AddressInfo).port }
}
