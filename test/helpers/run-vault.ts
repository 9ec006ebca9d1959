/**
 * Runs a `vault` command line of a table that mixes `vault run` with other commands: `vault run` in a
 * process of its own (runCli, test/helpers/cli.ts), as its child process is the point; every other
 * command in this process (runCommandLine, test/helpers/run-command-line.ts), which costs no start-up.
 */
import { runCli, type CliResult } from './cli.js'
import { runCommandLine } from './run-command-line.js'

export interface VaultRunOptions {
  env?: Record<string, string | undefined>
  cwd?: string
  input?: string
  /** For `vault run` (runCli's timeout); a command in this process runs to its end. */
  timeout?: number
}

export function runVault(argv: string[], options: VaultRunOptions = {}): Promise<CliResult> {
  return argv[0] === 'run' ? runCli(argv, options) : runCommandLine(argv, options)
}
