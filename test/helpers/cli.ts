/**
 * Runs the built CLI (`bin/run.js`) as a user would, with a clean environment plus what the test gives:
 * `node -- bin/run.js`, as its shebang does, so Node never reads an `--env-file` of the arguments.
 */
import { execa } from 'execa'
import { fileURLToPath } from 'node:url'
import { checkJsonAnswer } from './json-shape.js'

export const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
/** Runs a command line through the full oclif path only (never the lean path of src/cli/lean.ts). */
export const oclifPathJs = fileURLToPath(new URL('./oclif-path.mjs', import.meta.url))

export interface CliOptions {
  env?: Record<string, string | undefined>
  cwd?: string
  input?: string
  timeout?: number
  /** The script node runs: bin/run.js (default), or oclifPathJs to bypass the lean path. */
  entry?: string
}

export interface CliResult {
  exitCode: number
  stdout: string
  stderr: string
}

/** Runs `vault <args>` and resolves with its result whatever the exit code. */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const result = await execa(process.execPath, ['--', options.entry ?? runJs, ...args], {
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...options.env },
    extendEnv: false,
    cwd: options.cwd,
    input: options.input ?? '',
    reject: false,
    timeout: options.timeout ?? 60_000,
    stripFinalNewline: false,
  })
  const stdout = String(result.stdout)
  if (args.includes('--json') || options.env?.VAULT_CONTENT_TYPE === 'json') checkJsonAnswer(args, stdout)
  return { exitCode: result.exitCode ?? -1, stdout, stderr: String(result.stderr) }
}
