/**
 * The rotation hook: a shell command that receives the new value on stdin (never in its argv or
 * environment) and must succeed before the vault changes. Its output goes to stderr.
 */
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
