/**
 * Runs the proxy process: builds the backend and one server per frontend address, listens, logs the
 * rules' exposures, and on SIGTERM/SIGINT shuts down within the grace period.
 */
import { chmodSync } from 'node:fs'
import type { ProxyAddress, ProxyConfig } from './config.js'
import { createBackend } from './backend.js'
import { boundBufferGarbage } from './buffer-garbage.js'
import { createLogger, type ProxyLogger } from './log.js'
import { startLearnMode } from './learn/learn-mode.js'
import { exposureWarnings } from './presets.js'
import { allRuleSets, describeRuleSets } from './rule-sets.js'
import { createProxyServer, type ProxyServer } from './server.js'
import { claimSocketPath } from './socket-path.js'

/** `tcp://host:port` or `unix:///path` for a log line. */
function formatAddress(address: ProxyAddress): string {
  return address.kind === 'unix' ? `unix://${address.path}` : `tcp://${address.host}:${address.port}`
}

async function listen(proxy: ProxyServer, address: ProxyAddress): Promise<void> {
  if (address.kind === 'unix') await claimSocketPath(address.path)
  return new Promise((resolve, reject) => {
    proxy.server.once('error', reject)
    const done = () => {
      proxy.server.off('error', reject)
      resolve()
    }
    if (address.kind === 'unix') {
      // bind() creates the socket file through the umask (Node binds inside listen()): with the mode as
      // the umask's complement it never exists, even for a moment, with more rights than asked for; a
      // client that connected in that moment would keep its connection after the chmod
      const umask = process.umask(0o777 & ~address.mode)
      try {
        proxy.server.listen(address.path, () => {
          chmodSync(address.path, address.mode)
          done()
        })
      } finally {
        process.umask(umask)
      }
    } else if (address.host === '') proxy.server.listen(address.port, done)
    else proxy.server.listen(address.port, address.host, done)
  })
}

/** Starts the proxy; resolves once every frontend listens. Returns a function that shuts it down. */
export async function runProxy(config: ProxyConfig, logger: ProxyLogger) {
  const backend = await createBackend(config.backend, config.backendTls)
  const learn =
    config.learn && startLearnMode(config.learn, config, { logger, loud: createLogger(7, config.logFormat) })
  const proxies: ProxyServer[] = []
  for (const frontend of config.frontends) {
    const proxy = await createProxyServer({
      ruleSets: config.ruleSets,
      frontend: formatAddress(frontend),
      backend,
      logger,
      tls: config.frontendTls,
      maxConnections: config.maxConnections,
      guard: config.guard,
      learner: learn?.learner,
      composePolicy: config.composePolicy,
    })
    proxy.server.on('error', (error) => logger.log('error', 'server error', { reason: error.message }))
    await listen(proxy, frontend)
    proxies.push(proxy)
    logger.log('info', 'listening', {
      frontend: formatAddress(frontend),
      backend: formatAddress(config.backend),
      tls: config.frontendTls ? (config.frontendTls.ca ? 'mutual' : 'server') : 'off',
      ruleSets: describeRuleSets(config.ruleSets),
    })
  }
  if (config.composePolicy)
    logger.log('info', 'compose policy', {
      project: config.composePolicy.project,
      files: config.composePolicy.files.join(','),
      services: [...config.composePolicy.services.keys()].join(','),
    })
  if (!config.guard.enabled)
    logger.log('warning', 'THE HOST-ESCAPE GUARD IS OFF', {
      detail:
        'any client a rule allows to create containers, execs, services or volumes can take the host (privileged, host mounts, the engine socket); PROXY_GUARD=on restores the guard',
    })
  for (const set of allRuleSets(config.ruleSets)) {
    for (const warning of exposureWarnings(set.rules, set.redactEnv)) {
      // Under a compose policy a create is matched to its service's declared fields (compose-policy/).
      if (config.composePolicy && warning.startsWith('POST /containers/create ')) continue
      logger.log('warning', 'rules expose', { ruleSet: set.name, detail: warning })
    }
  }
  const bufferGarbage = boundBufferGarbage()
  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      bufferGarbage.stop()
      logger.log('info', 'shutting down', { graceMs: config.shutdownGraceMs })
      await Promise.all(proxies.map((proxy) => proxy.shutdown(config.shutdownGraceMs)))
      backend.close()
      learn?.stop()
      logger.log('info', 'stopped', { bufferCollections: bufferGarbage.collections() })
    })()
    return stopping
  }
  return { stop, addresses: proxies.map((proxy) => proxy.server.address()) }
}
