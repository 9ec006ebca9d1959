/**
 * `vault proxy serve` in one lean process: the process that parsed the command line replaces itself
 * (process.execve: same PID, no parent left resident) with Node running the lean entry (`main.js`)
 * under the proxy's V8 flags, passing the serve arguments and the environment on unchanged. bin/run.js
 * calls this before loading oclif; the oclif command calls it too (bin/dev.js).
 */
import { packagePath } from '../package-root.js'
import { regexpFlags } from './regexp-flags.js'

/**
 * V8 flags of the serving process, chosen by measuring CPU per request (bench/proxy.ts) and resident
 * memory (1,000 held connections, test/integration/proxy-abuse.test.ts): a small young generation; no V8
 * worker threads (GC on the main thread); Ignition and Maglev only (`--max-opt=2`, no Sparkplug, no
 * TurboFan, whose first compile pages in compiler code and zones); Maglev only for really hot functions
 * (5,000 calls, no inlining), so that the per-request path is compiled but a burst of connections
 * compiles little; a heap that favours size; `gc` exposed, so that admission.ts can compact once a burst
 * of connections has gone and RSS falls back after it; and no incremental marking: while V8 marks
 * incrementally (its memory reducer starts such a cycle when the load pauses), the answers relayed
 * meanwhile are kept to the end of the cycle and glibc keeps the heap they grew. Plus the flags that bound
 * every rule pattern's time (regexp-flags.ts). Figures, and the flags measured and rejected:
 * docs/proxy-performance.md; the Node version they are checked on: docs/decisions.md.
 */
export const proxyNodeFlags = [
  ...regexpFlags,
  '--max-semi-space-size=1',
  '--single-threaded',
  '--max-opt=2',
  '--no-sparkplug',
  '--invocation-count-for-maglev=5000',
  '--no-maglev-inlining',
  '--optimize-for-size',
  '--expose-gc',
  '--no-incremental-marking',
]

/**
 * glibc's malloc settings for the serving process (GLIBC_TUNABLES; other C libraries ignore it): keep up
 * to 4 MB of freed heap instead of returning it to the kernel at once. Each relayed answer is read into
 * fresh 64 KB buffers that are freed together after a collection; with glibc's default (128 KB) the top
 * of the heap went back to the kernel and was faulted in again page by page (figures:
 * docs/proxy-performance.md, "Page faults"). A tunable the user has set is kept as it is.
 */
export const proxyMallocTunables = ['glibc.malloc.trim_threshold=4194304']

/** The serving process's environment: `env` with the malloc tunables the user has not set added. */
export function proxyEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = env.GLIBC_TUNABLES ? env.GLIBC_TUNABLES.split(':') : []
  const named = new Set(own.map((tunable) => tunable.split('=')[0]))
  const added = proxyMallocTunables.filter((tunable) => !named.has(tunable.split('=')[0]))
  return { ...env, GLIBC_TUNABLES: [...own, ...added].join(':') }
}

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
      [process.execPath, ...proxyNodeFlags, '--', proxyMainPath, ...args],
      proxyEnvironment(process.env),
    )
  }
  const { runProxyMain } = (await import(proxyMainPath)) as {
    runProxyMain(args: readonly string[]): Promise<void>
  }
  await runProxyMain(args)
}
