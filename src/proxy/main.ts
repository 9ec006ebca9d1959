/**
 * The lean entry point of the proxy process (container ENTRYPOINT, and what `vault proxy serve` becomes
 * through process.execve): `main.js [--flag value ...]` with each flag's PROXY_* variable as fallback
 * (settings.ts), no oclif. `main.js healthcheck` probes the first frontend instead (its module is
 * loaded only then: every module the serving process loads costs resident memory).
 */
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { exitCodeOf, isVaultError } from '../errors.js'
import { defaultFrontendAddr, parseAddress, resolveProxyConfig } from './config.js'
import { createLogger } from './log.js'
import { runProxy } from './run.js'
import { settingsFromArgs } from './settings.js'

/** The module that loads a compose policy (see runProxyMain). */
const composePolicyLoader = './compose-policy/load.js'

function fail(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error)
  const hint = isVaultError(error) && error.hint ? `\nhint: ${error.hint}` : ''
  process.stderr.write(`error: ${message}${hint}\n`)
  process.exit(exitCodeOf(error))
}

/** Serves (or, with `healthcheck` first, probes) with the settings of `args` over PROXY_* variables. */
export async function runProxyMain(args: readonly string[]): Promise<void> {
  try {
    if (args[0] === 'healthcheck') {
      const settings = settingsFromArgs(args.slice(1), process.env)
      const { checkProxyHealth } = await import('./healthcheck.js')
      const frontend = parseAddress(settings.frontendAddrs?.[0] ?? defaultFrontendAddr, 'PROXY_FRONTEND_ADDR')
      const result = await checkProxyHealth(frontend, Boolean(settings.frontendTlsCert))
      if (!result.healthy) process.stderr.write(`unhealthy: ${result.reason}\n`)
      process.exit(result.healthy ? 0 : 1)
    }
    const settings = settingsFromArgs(args, process.env)
    const config = resolveProxyConfig(settings)
    if (settings.composePolicy?.length) {
      // The compose loader (and its YAML parser) stays out of the bundle: a specifier that is not a
      // literal is not bundled, so a proxy without a policy never parses it (bundled, it made main.js
      // 310 KB instead of 191 KB); this loads tsc's dist/proxy/compose-policy/load.js and its imports.
      const { loadComposePolicy } = (await import(
        composePolicyLoader
      )) as typeof import('./compose-policy/load.js')
      // that module has its own copy of the error classes: fail() knows them by isVaultError
      config.composePolicy = loadComposePolicy(settings.composePolicy, process.env)
    }
    const logger = createLogger(config.logLevel, config.logFormat)
    process.on('uncaughtException', (error) =>
      logger.log('error', 'unexpected error', { reason: error.message }),
    )
    // The handlers are in place before the first frontend listens (and says so): a supervisor that
    // stops the proxy as soon as it reads 'listening' gets the graceful stop, not the default SIGTERM
    // death. A stop asked for during start-up runs once every frontend listens.
    const stopAsked = new Promise<void>((resolve) => {
      process.once('SIGTERM', () => resolve())
      process.once('SIGINT', () => resolve())
    })
    const proxy = await runProxy(config, logger)
    await stopAsked
    await proxy.stop()
    process.exit(0)
  } catch (error) {
    fail(error)
  }
}

function isEntryPoint(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isEntryPoint()) void runProxyMain(process.argv.slice(2))
