/**
 * The --watch mode for a compose `up`: compose runs once; on a change, the services that reference
 * the changed secrets (render's reference index) are recreated with the fresh values and waited for,
 * through rotate's restart machinery (src/rotate/restart.ts). After a detached `up` (`-d`, `--wait`)
 * the run keeps watching until it is stopped; the stack keeps running then.
 */
import type { ComposeUp } from '../process/compose-command.js'
import type { WatchMode, WatchOptions } from './watch.js'

/**
 * Rotate's readiness check (running, healthy when it has a health check, else running without a
 * restart for `stableSeconds`), with a shorter stability window: nothing is rolled back here.
 */
const readiness = { waitSeconds: 60, stableSeconds: 5 }

/** The recreate-the-services watch mode. */
export function composeWatcher(
  compose: ComposeUp,
  options: WatchOptions & { stopping: AbortSignal },
): WatchMode {
  const stackDir = compose.projectDirectory ?? options.composeDir ?? process.cwd()
  const composeFiles = compose.files.length > 0 ? compose.files : options.composeFiles
  const { projectName } = compose

  async function recreate(names: string[]): Promise<void> {
    const { createSecretLayer } = await import('../delivery/secret-layer.js')
    const { executeRestart, planRestart } = await import('../rotate/restart.js')
    const secrets = await createSecretLayer(options.settings).load(options.environment ?? '')
    const plans = []
    for (const name of names)
      plans.push(
        await planRestart({ name, secrets, stackDir, composeFiles, projectName, allowEnv: options.allowEnv }),
      )
    const services = [...new Set(plans.flatMap((plan) => plan.services))].sort()
    const planned = plans.find((plan) => plan.client)
    if (!planned || services.length === 0) {
      options.note(`${names.join(', ')} changed; no service uses ${names.length > 1 ? 'them' : 'it'}`)
      return
    }
    options.note(`${names.join(', ')} changed: recreating ${services.join(', ')}`)
    const result = await executeRestart({ ...planned, services }, secrets, readiness)
    for (const report of result.services) {
      const health = report.health ? ` (${report.health})` : ''
      const verdict = report.ok ? 'ready' : `NOT READY${report.reason ? `: ${report.reason}` : ''}`
      options.note(`  ${report.service}: ${report.status}${health}, ${verdict}`)
    }
    if (result.error) options.note(`Warning: ${result.error}`)
  }

  return {
    async run(first, command, args) {
      const code = await first.start(command, args)
      if (code !== 0 || !compose.detached || options.stopping.aborted) return code
      options.note('watching for changes; stop with Ctrl-C (the stack keeps running)')
      const { untilAborted } = await import('../delivery/change-watch.js')
      await untilAborted(options.stopping)
      return 0
    },
    async onChanges(names) {
      if (options.stopping.aborted) return
      await recreate(names).catch((error: unknown) =>
        options.note(
          `Warning: recreating after ${names.join(', ')} changed failed: ${(error as Error).message}`,
        ),
      )
    },
  }
}
