/**
 * `vault proxy serve` in one lean process: the process that parsed the command line replaces itself
 * (process.execve: same PID, no parent left resident) with Node running the lean entry (`main.js`)
 * under the proxy's V8 flags, passing the serve arguments and the environment on unchanged. bin/run.js
 * calls this before loading oclif; the oclif command calls it too (bin/dev.js).
 */
import { packagePath } from '../package-root.js'

/**
 * V8 flags of the serving process, chosen by measuring resident memory (bench/proxy.ts and 1,000 held
 * connections in test/integration/proxy-abuse.test.ts): a 1 MB young generation; no V8 worker threads
 * (GC on the main thread); and no optimising tier at all, only the Ignition interpreter: TurboFan's
 * first compile pages in about 6 MB of the Node binary's compiler code and its zones, and Maglev cost
 * about 2 MB at start and 2 MB more under 1,000 connections, for a few percent less CPU on this
 * workload (its JavaScript is a small part of each request; the parsing is native); and a heap that
 * grows slowly (`--optimize-for-size`), so a second wave of 1,000 connections reuses the first's memory
 * instead of adding 3 MB to it.
 */
export const proxyNodeFlags = [
  '--max-semi-space-size=1',
  '--single-threaded',
  '--max-opt=2',
  '--no-maglev',
  '--no-sparkplug',
  '--optimize-for-size',
]

/** Path of the lean entry point: bundled into one file that loads nothing else. */
export const proxyMainPath = packagePath('dist', 'proxy', 'main.js')

/**
 * Replaces this process with the lean proxy serving `args` (the flags after `proxy serve`). Where
 * process.execve is missing (not POSIX), serves in this process instead, without the V8 flags.
 */
export async function serveProxyInPlace(args: readonly string[]): Promise<void> {
  if (typeof process.execve === 'function') {
    process.execve(
      process.execPath,
      [process.execPath, ...proxyNodeFlags, proxyMainPath, ...args],
      process.env,
    )
  }
  const { runProxyMain } = (await import(proxyMainPath)) as {
    runProxyMain(args: readonly string[]): Promise<void>
  }
  await runProxyMain(args)
}
