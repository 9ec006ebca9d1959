/**
 * The lean entry point of the proxy process (container ENTRYPOINT, and what `vault proxy serve`
 * re-executes with small V8 semi-spaces): configuration from PROXY_* variables only, no oclif.
 * `main.js healthcheck` probes the first frontend instead (its module is loaded only then: every
 * module the serving process loads costs resident memory).
 */
import { exitCodeOf, VaultError } from '../errors.js'
import { resolveProxyConfig, settingsFromEnv, parseAddress, defaultFrontendAddr } from './config.js'
import { createLogger } from './log.js'
import { runProxy } from './run.js'

function fail(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error)
  const hint = error instanceof VaultError && error.hint ? `\nhint: ${error.hint}` : ''
  process.stderr.write(`error: ${message}${hint}\n`)
  process.exit(exitCodeOf(error))
}

async function main(): Promise<void> {
  const settings = settingsFromEnv(process.env)
  if (process.argv[2] === 'healthcheck') {
    const { checkProxyHealth } = await import('./healthcheck.js')
    const frontend = parseAddress(settings.frontendAddrs?.[0] ?? defaultFrontendAddr, 'PROXY_FRONTEND_ADDR')
    const result = await checkProxyHealth(frontend, Boolean(settings.frontendTlsCert))
    if (!result.healthy) process.stderr.write(`unhealthy: ${result.reason}\n`)
    process.exit(result.healthy ? 0 : 1)
  }
  const config = resolveProxyConfig(settings)
  const logger = createLogger(config.logLevel, config.logFormat)
  process.on('uncaughtException', (error) =>
    logger.log('error', 'unexpected error', { reason: error.message }),
  )
  const proxy = await runProxy(config, logger)
  const stop = () => proxy.stop().then(() => process.exit(0))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

main().catch(fail)
