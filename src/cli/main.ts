/**
 * The CLI's entry inside the bundle: runs the command line of the `vault` package whose bin/run.js
 * called it. The data commands take the lean path (lean.ts) when they can; everything else, help
 * included, goes through oclif in full (oclif-path.ts), which is loaded only then.
 */
import { fileURLToPath } from 'node:url'
import { leanCommandId, runLean } from './lean.js'

/** Runs the command line of this process; `binUrl` is bin/run.js's own URL. */
export async function runCli(binUrl: string): Promise<unknown> {
  const argv = process.argv.slice(2)
  const lean = leanCommandId(argv, process.env)
  if (lean) return runLean(lean, argv.slice(1), fileURLToPath(new URL('..', binUrl)))
  const { runOclif } = await import('./oclif-path.js')
  return runOclif(binUrl, argv)
}
