/**
 * Runs one command class in this test's own process, as oclif would run it from the command line:
 * flags, usage errors, exit codes and `--json` shapes without spawning a process (about 100 times
 * faster than `runCli`). What needs a real process stays with `runCli` (test/helpers/cli.ts): the lean
 * start-up path, signals, a child's exit code, stdin as a pipe or a terminal.
 *
 * The environment is the test's own with `env` applied on top (a value of undefined unsets a name);
 * both are put back afterwards, as are the working directory and `process.exitCode`.
 */
import { Config } from '@oclif/core/config'
import { fileURLToPath } from 'node:url'
import { format } from 'node:util'

const root = fileURLToPath(new URL('../../', import.meta.url))
let config: Promise<Config> | undefined

/** A command class as the commands export it (BaseCommand's static run takes argv and a Config). */
export interface RunnableCommand {
  run(argv?: string[], config?: Config): Promise<unknown>
}

export interface CommandRunOptions {
  env?: Record<string, string | undefined>
  cwd?: string
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
  const written = { stdout: '', stderr: '' }
  const restore = [
    capture(process.stdout, (text) => (written.stdout += text)),
    capture(process.stderr, (text) => (written.stderr += text)),
    captureConsole('log', (text) => (written.stdout += text)),
    captureConsole('error', (text) => (written.stderr += text)),
    applyEnv(options.env ?? {}),
    applyCwd(options.cwd),
  ]
  const exitCodeBefore = process.exitCode
  process.exitCode = undefined
  try {
    const result = await CommandClass.run(argv, loaded)
    return { exitCode: Number(process.exitCode ?? 0), ...written, result }
  } catch (error) {
    const exit = (error as { oclif?: { exit?: number } }).oclif?.exit
    if (exit === undefined) throw error
    return { exitCode: exit, ...written }
  } finally {
    for (const undo of restore.reverse()) undo()
    process.exitCode = exitCodeBefore
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

function applyEnv(env: Record<string, string | undefined>): () => void {
  const before = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]))
  const set = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
  set(env)
  return () => set(before)
}

function applyCwd(cwd: string | undefined): () => void {
  if (!cwd) return () => {}
  const before = process.cwd()
  process.chdir(cwd)
  return () => process.chdir(before)
}
