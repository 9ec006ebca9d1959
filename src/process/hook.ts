/**
 * The rotation hook: a shell command that receives the new value on stdin (never in its argv or
 * environment) and must succeed before the vault changes. Its output goes to stderr.
 */
import { ExitCode, VaultError } from '../errors.js'

/**
 * The rotation hook exited non-zero, so nothing was changed: exit 10, like a check that found
 * something (the hook refused the new value), never 1, which means a bug of vault.
 */
export class HookFailedError extends VaultError {
  override name = 'HookFailedError'
  override readonly code: string = 'ERR_ROTATE_HOOK'
  override readonly exitCode = ExitCode.findings
  readonly hookExitCode: number

  constructor(hookExitCode: number, version: number) {
    super(
      `the hook exited with ${hookExitCode}: nothing was changed (the vault still holds version ${version})`,
      { hint: 'fix the hook; it gets the new value on stdin and must exit 0' },
    )
    this.hookExitCode = hookExitCode
  }
}
export interface HookOptions {
  /** The secret's name and environment, given to the hook as VAULT_ROTATE_NAME / VAULT_ROTATE_ENV. */
  name: string
  environment?: string
  env: Record<string, string>
  cwd?: string
}

/** Runs `sh -c <command>` with `value` on stdin and resolves with its exit code. */
export async function runHook(command: string, value: string, options: HookOptions): Promise<number> {
  const { execa } = await import('execa')
  const result = await execa('sh', ['-c', command], {
    env: { ...options.env, VAULT_ROTATE_NAME: options.name, VAULT_ROTATE_ENV: options.environment ?? '' },
    extendEnv: false,
    cwd: options.cwd,
    input: value,
    stdout: 2,
    stderr: 2,
    reject: false,
    timeout: 300_000,
  })
  if ((result as { code?: string }).code === 'ENOENT') return 127
  return result.exitCode ?? 1
}
