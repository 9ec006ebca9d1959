/**
 * The CLI's entry inside the bundle: runs the command line of the `vault` package whose bin/run.js
 * called it. The data commands take the lean path (lean.ts) when they can; everything else, help
 * included, goes through oclif in full (oclif-path.ts), which is loaded only then.
 */
import { fileURLToPath } from 'node:url'
import { leanCommandId } from './lean.js'

/** What dist/cli/lean/<id>.js exports: the command run by the lean runner (lean-run.ts). */
interface LeanEntry {
  runLeanCommand(argv: string[], root: string): Promise<unknown>
}

/** Runs the command line of this process; `binUrl` is bin/run.js's own URL. */
export async function runCli(binUrl: string): Promise<unknown> {
  const argv = process.argv.slice(2)
  const lean = leanCommandId(argv, process.env)
  if (lean) {
    // a computed specifier: the bundler leaves it to Node (the lean bundles are a build of their own)
    const entry = new URL(`lean/${lean}.js`, import.meta.url).href
    const { runLeanCommand } = (await import(entry)) as LeanEntry
    return runLeanCommand(argv.slice(1), fileURLToPath(new URL('..', binUrl)))
  }
  const { runOclif } = await import('./oclif-path.js')
  return runOclif(binUrl, argv)
}
