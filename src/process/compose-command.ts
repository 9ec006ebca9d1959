/**
 * Recognises a compose `up` in the command line of `vault run` (`docker compose ... up ...` or
 * `docker-compose ... up ...`) and reads what `vault run --watch` needs from it: the compose files,
 * the project directory, and whether `up` detaches (`-d`, `--detach`, `--wait`).
 */
import { basename } from 'node:path'
import { composeValueOptions } from './compose-value-options.js'

export interface ComposeUp {
  files: string[]
  projectDirectory?: string
  projectName?: string
  detached: boolean
}

/** Global options of docker that take a value (so their value is not the subcommand). */
const dockerValued = new Set(['-c', '--context', '-H', '--host', '--config', '-l', '--log-level'])

/** The compose `up` in `command args`, or undefined for any other command. */
export function parseComposeUp(command: string, args: string[]): ComposeUp | undefined {
  const program = basename(command)
  let rest = args
  if (program === 'docker') {
    const index = subcommandIndex(rest, dockerValued)
    if (rest[index] !== 'compose') return undefined
    rest = rest.slice(index + 1)
  } else if (program !== 'docker-compose') return undefined
  const found: ComposeUp = { files: [], detached: false }
  const index = subcommandIndex(rest, composeValueOptions, (option, value) => {
    if (option === '-f' || option === '--file') found.files.push(value)
    if (option === '--project-directory') found.projectDirectory = value
    if (option === '-p' || option === '--project-name') found.projectName = value
  })
  if (rest[index] !== 'up') return undefined
  found.detached = rest
    .slice(index + 1)
    .some((arg) => arg === '--detach' || arg === '--wait' || /^-[a-zA-Z]*d[a-zA-Z]*$/.test(arg))
  return found
}

/** The index of the first word that is neither an option nor an option's value. */
function subcommandIndex(
  args: string[],
  valued: ReadonlySet<string>,
  seen: (option: string, value: string) => void = () => undefined,
): number {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (!arg.startsWith('-')) return index
    const equals = arg.indexOf('=')
    if (arg.startsWith('--') && equals > 0) {
      seen(arg.slice(0, equals), arg.slice(equals + 1))
      continue
    }
    if (valued.has(arg)) {
      seen(arg, args[index + 1] ?? '')
      index++
    }
  }
  return args.length
}
