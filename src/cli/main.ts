/**
 * The CLI's entry inside the bundle: runs oclif for the `vault` package whose bin/run.js called it.
 */
import { execute } from '@oclif/core/execute'

/** Runs the command line of this process; `binUrl` is bin/run.js's own URL (oclif finds package.json from it). */
export function runCli(binUrl: string): Promise<unknown> {
  return execute({ dir: binUrl })
}
