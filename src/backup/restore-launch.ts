/**
 * `vault restore` in a process tuned for streaming: the process that parsed the command line replaces
 * itself (process.execve: same PID, no parent left resident) with Node running the same command under
 * `restoreNodeFlags`, the environment passed on unchanged. bin/run.js calls this before loading oclif.
 * Where process.execve is missing (not POSIX), restore runs in this process without the flags (memory
 * is then higher but the checks are the same).
 */

/**
 * V8 flags of a restore, chosen by measuring peak resident memory on genuine archives up to the
 * inflate cap (bench/restore-memory.ts): a 1 MB young generation (the default grows to 32 MB and more
 * while rows stream), and `gc` exposed so the streaming passes collect every few MiB of work
 * (src/process/gc-pacer.ts), which frees the native memory behind their garbage.
 */
export const restoreNodeFlags = ['--max-semi-space-size=1', '--expose-gc']

/** Whether this process already runs under the restore flags. */
export function underRestoreFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return restoreNodeFlags.every((flag) => execArgv.includes(flag))
}

/**
 * Replaces this process with one running `script args` under the restore flags (keeping the Node
 * options this one was started with); returns without doing anything when the flags are already
 * there or process.execve is missing.
 */
export function relaunchForRestore(script: string, args: readonly string[]): void {
  if (typeof process.execve !== 'function' || underRestoreFlags()) return
  process.execve(
    process.execPath,
    [process.execPath, ...restoreNodeFlags, ...process.execArgv, '--', script, ...args],
    process.env,
  )
}
