/**
 * Runs a whole command line (`['secrets', 'init', '--env', 'dev']`) in this process: finds the command
 * whose id is the longest run of leading words, imports its class from src/commands/ and runs it with
 * runCommand (test/helpers/run-command.ts), so a test written against runCli's argv keeps its words.
 * `vault run` is refused: it starts a child process, which runCli's spawned CLI is for.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  runCommand,
  type CommandRunOptions,
  type CommandRunResult,
  type RunnableCommand,
} from './run-command.js'

const commands = fileURLToPath(new URL('../../src/commands/', import.meta.url))

export async function runCommandLine(
  argv: string[],
  options: CommandRunOptions = {},
): Promise<CommandRunResult> {
  for (let words = Math.min(argv.length, 3); words > 0; words--) {
    const path = argv.slice(0, words).join('/')
    const file = [`${path}.ts`, `${path}/index.ts`].find((candidate) => existsSync(`${commands}${candidate}`))
    if (!file || argv.slice(0, words).some((word) => word.startsWith('-'))) continue
    if (path === 'run') throw new Error('runCommandLine: vault run starts a child process; use runCli')
    const loaded = (await import(`${commands}${file}`)) as { default: RunnableCommand }
    return runCommand(loaded.default, argv.slice(words), options)
  }
  throw new Error(`runCommandLine: no command in ${JSON.stringify(argv)}`)
}
