/**
 * Runs one command class in this test's own process, as oclif would run it from the command line:
 * flags, usage errors, exit codes, `--help` (oclif's help, from the manifest) and `--json` shapes without spawning a process (about 100 times
 * faster than `runCli`). What needs a real process stays with `runCli` (test/helpers/cli.ts): the lean
 * start-up path, signals, a child's exit code, stdin as a pipe or a terminal.
 *
 * The environment is the test's own without its `VAULT_*` and `PROXY_*` variables (as runCli's clean
 * environment has none), or with `clean` only PATH and LANG (runCli's), with `env` applied on top (a value
 * of undefined unsets a name); it is put back afterwards,
 * as are the working directory, `process.exitCode`, stdout, stderr, console.log/error, the signal
 * listeners a command added, the command class's static `id` and process.stdin (a pipe holding `input`). A `--json` answer (or one under
 * VAULT_CONTENT_TYPE=json) is checked against test/schemas/<id>.json, as runCli checks it.
 */
import { Config } from '@oclif/core/config'
import { loadHelpClass } from '@oclif/core/help'
import { fileURLToPath } from 'node:url'
import { Readable } from 'node:stream'
import { format } from 'node:util'
import { checkJsonAnswer } from './json-shape.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
let config: Promise<Config> | undefined

/** A command class as the commands export it (BaseCommand's static run takes argv and a Config). */
export interface RunnableCommand {
  name: string
  id?: string
  run(argv?: string[], config?: Config): Promise<unknown>
}

export interface CommandRunOptions {
  env?: Record<string, string | undefined>
  /** The environment is `env` alone, with PATH and LANG, as runCli's (a command that reads any variable). */
  clean?: boolean
  cwd?: string
  /** What the command reads on stdin, as from a pipe (never a terminal); default: an empty pipe, as runCli's. */
  input?: string
}

export interface CommandRunResult {
  exitCode: number
  stdout: string
  stderr: string
  /** What run() returned (the object `--json` prints), when it returned. */
  result?: unknown
}

/** Runs `CommandClass` with `argv` (the words after the command's id) and captures what it wrote. */
export async function runCommand(
  CommandClass: RunnableCommand,
  argv: string[],
  options: CommandRunOptions = {},
): Promise<CommandRunResult> {
  config ??= Config.load({ root })
  const loaded = await config
  const id = commandIdOf(loaded, CommandClass)
  const env: Record<string, string | undefined> = options.clean
    ? { ...unsetAll(), PATH: process.env.PATH, LANG: 'C.UTF-8', ...options.env }
    : { ...unsetOwnVariables(), ...options.env }
  const written = { stdout: '', stderr: '' }
  const restore = [
    applyId(CommandClass, id),
    keepSignalListeners(),
    capture(process.stdout, (text) => (written.stdout += text)),
    capture(process.stderr, (text) => (written.stderr += text)),
    captureConsole('log', (text) => (written.stdout += text)),
    captureConsole('error', (text) => (written.stderr += text)),
    applyEnv(env),
    applyCwd(options.cwd),
    applyStdin(options.input ?? ''),
  ]
  const exitCodeBefore = process.exitCode
  process.exitCode = undefined
  let run: CommandRunResult
  try {
    const result = wantsHelp(argv) ? await showHelp(loaded, id, argv) : await CommandClass.run(argv, loaded)
    run = { exitCode: Number(process.exitCode ?? 0), ...written, result }
  } catch (error) {
    const exit = (error as { oclif?: { exit?: number } }).oclif?.exit
    if (exit === undefined) throw error
    run = { exitCode: exit, ...written }
  } finally {
    for (const undo of restore.reverse()) undo()
    process.exitCode = exitCodeBefore
  }
  if (argv.includes('--json') || env.VAULT_CONTENT_TYPE === 'json')
    checkJsonAnswer([...id.split(':'), ...argv], run.stdout)
  return run
}

/** Whether oclif's entry would show help instead of running the command (`--help` before any `--`). */
function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).includes('--help')
}

/** The help oclif's entry shows for `vault <id> <argv>`, from oclif.manifest.json (what ships). */
async function showHelp(loaded: Config, id: string, argv: readonly string[]): Promise<undefined> {
  const Help = await loadHelpClass(loaded)
  await new Help(loaded, loaded.pjson.oclif.helpOptions).showHelp([...id.split(':'), ...argv])
  return undefined
}

/**
 * The id oclif gives `CommandClass` (`secrets:list` for SecretsList): the command id whose words,
 * joined, are the class's name (without a trailing `Command`).
 */
function commandIdOf(loaded: Config, CommandClass: RunnableCommand): string {
  const name = CommandClass.name.toLowerCase().replace(/command$/, '')
  const id = loaded.commandIDs.find((candidate) => candidate.replaceAll(':', '').replaceAll('-', '') === name)
  if (!id) throw new Error(`runCommand: no command id matches the class ${CommandClass.name}`)
  return id
}

/** oclif names a class without a static id after the class (`secretslist`): give it its real id. */
function applyId(CommandClass: RunnableCommand, id: string): () => void {
  const before = Object.getOwnPropertyDescriptor(CommandClass, 'id')
  CommandClass.id = id
  return () => {
    if (before) Object.defineProperty(CommandClass, 'id', before)
    else delete CommandClass.id
  }
}

/** The test process's VAULT_* and PROXY_* variables, unset for the run (a developer's own settings are not the test's). */
function unsetOwnVariables(): Record<string, undefined> {
  return Object.fromEntries(
    Object.keys(process.env)
      .filter((name) => name.startsWith('VAULT_') || name.startsWith('PROXY_'))
      .map((name) => [name, undefined]),
  )
}

/** Every variable of the test process, unset for the run (`clean`). */
function unsetAll(): Record<string, undefined> {
  return Object.fromEntries(Object.keys(process.env).map((name) => [name, undefined]))
}

const processEvents = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'exit']

/** Removes the listeners a command added to the process's signals (and exit) when it returns. */
function keepSignalListeners(): () => void {
  // the process's events as plain names: the overloads of listeners() take one kind each
  const events = process as unknown as NodeJS.EventEmitter
  const before = new Map(processEvents.map((event) => [event, new Set(events.listeners(event))]))
  return () => {
    for (const event of processEvents)
      for (const listener of events.listeners(event))
        if (!before.get(event)!.has(listener)) events.removeListener(event, listener as () => void)
  }
}

/** Replaces a stream's write with `sink` until the returned function is called. */
function capture(stream: NodeJS.WriteStream, sink: (text: string) => void): () => void {
  const write = stream.write
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined
    callback?.()
    return true
  }) as typeof stream.write
  return () => {
    stream.write = write
  }
}

/** oclif's ux writes through console.log and console.error, which vitest intercepts: take them too. */
function captureConsole(method: 'log' | 'error', sink: (text: string) => void): () => void {
  const original = console[method]
  console[method] = (...args: unknown[]) => sink(`${format(...args)}\n`)
  return () => {
    console[method] = original
  }
}

/** Applies `env` to process.env; the returned function puts back the whole environment as it was. */
function applyEnv(env: Record<string, string | undefined>): () => void {
  const before = { ...process.env }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  return () => {
    for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name]
    Object.assign(process.env, before)
  }
}

/** Puts a pipe holding `input` in place of process.stdin (a getter on process) until the returned function runs. */
function applyStdin(input: string): () => void {
  const before = Object.getOwnPropertyDescriptor(process, 'stdin')!
  Object.defineProperty(process, 'stdin', { value: Readable.from([input]), configurable: true })
  return () => Object.defineProperty(process, 'stdin', before)
}

/** Moves to `cwd` if given; the returned function goes back to the directory the test was in. */
function applyCwd(cwd: string | undefined): () => void {
  const before = process.cwd()
  if (cwd) process.chdir(cwd)
  return () => {
    if (process.cwd() !== before) process.chdir(before)
  }
}
