/**
 * The lean start-up path of the data commands (`export`, `inject`, `render`, `run`), which scripts and
 * compose wrappers run many times a day. The command class is imported directly and run with a small
 * stand-in for oclif's Config: no Config.load (package.json, the manifest, plugin discovery, run twice
 * per command by oclif), and none of oclif's config and help modules are evaluated (scripts/bundle.mjs
 * makes those requires lazy). The command class, its flags, oclif's parser, the command's error mapping
 * and oclif's exit handling are the same as on the full path. Any command line that could reach
 * something else (help, `--version`, a bare word that could name another command, oclif's DEBUG
 * output) takes the full oclif path. test/e2e/lean-path.test.ts runs a table of command lines through
 * both paths and compares stdout, stderr and the exit code.
 */
import type { Command } from '@oclif/core/command'
import type { Config } from '@oclif/core/config'
import { flush } from '@oclif/core/flush'
import { handle } from '@oclif/core/handle'
import type { Logger } from '@oclif/core/interfaces'
import { setLogger } from '@oclif/core/logger'
import { readFileSync } from 'node:fs'
import { arch, platform } from 'node:os'
import { join } from 'node:path'

type CommandClass = Omit<typeof Command, 'prototype'> & (new (argv: string[], config: Config) => Command)

/** The commands that may take the lean path, and how each one's module is loaded. */
const leanCommands: Record<string, () => Promise<{ default: CommandClass }>> = {
  export: () => import('../commands/export.js') as Promise<{ default: CommandClass }>,
  inject: () => import('../commands/inject.js') as Promise<{ default: CommandClass }>,
  render: () => import('../commands/render.js') as Promise<{ default: CommandClass }>,
  run: () => import('../commands/run.js') as Promise<{ default: CommandClass }>,
}

/**
 * The command id when `argv` can take the lean path: one of the data commands, followed by nothing or
 * by a flag (a bare word could be a topic or another command for oclif), no `--help` before the first
 * `--` (oclif's own help test), and no DEBUG variable (oclif's debug lines come from its Config).
 */
export function leanCommandId(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const [id, next] = argv
  if (id === undefined || !Object.hasOwn(leanCommands, id)) return undefined
  if (next !== undefined && !next.startsWith('-')) return undefined
  if (env.DEBUG) return undefined
  const end = argv.indexOf('--')
  if ((end === -1 ? argv : argv.slice(0, end)).includes('--help')) return undefined
  return id
}

/** Runs command `id` with its `argv` (the words after the id) as oclif's execute() would. */
export async function runLean(id: string, argv: string[], root: string): Promise<unknown> {
  const { default: CommandClass } = await leanCommands[id]!()
  setLogger({ logger: silentLogger('oclif'), root })
  try {
    const command = new CommandClass(argv, leanConfig(id, CommandClass, root))
    const result = await (command as unknown as { _run(): Promise<unknown> })._run()
    await flush()
    return result
  } catch (error) {
    return handle(error instanceof Error ? error : new Error(String(error)))
  }
}

/**
 * oclif's logger on the lean path. oclif's own writes through the `debug` package, which prints
 * nothing without DEBUG (and DEBUG sends a command line to the full path): this one is as silent
 * without loading that package (scripts/bundle.mjs makes oclif's require of it lazy).
 */
function silentLogger(namespace: string): Logger {
  const quiet = () => {}
  return {
    child: (child: string) => silentLogger(`${namespace}:${child}`),
    debug: quiet,
    error: quiet,
    info: quiet,
    namespace,
    trace: quiet,
    warn: quiet,
  }
}

/**
 * What a command reads from oclif's Config while it runs: the bin name and its scoped environment
 * variables (`VAULT_CONTENT_TYPE=json`, `VAULT_REDIRECTED`), the user agent, the topic separator and the
 * command's own id (for oclif's alias-deprecation check), and the parse hook (vault has none).
 */
function leanConfig(id: string, CommandClass: CommandClass, root: string): Config {
  const scopedKey = (key: string) => `VAULT_${key}`.toUpperCase()
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  const config = {
    _base: undefined,
    bin: 'vault',
    binAliases: undefined,
    commandIDs: [id],
    findCommand: (candidate: string) => (candidate === id ? CommandClass : undefined),
    pjson: { oclif: {} },
    root,
    runHook: async () => ({ failures: [], successes: [] }),
    scopedEnvVar: (key: string) => process.env[scopedKey(key)],
    scopedEnvVarKey: scopedKey,
    scopedEnvVarKeys: (key: string) => [scopedKey(key)],
    scopedEnvVarTrue: (key: string) => ['1', 'true'].includes(process.env[scopedKey(key)] ?? ''),
    topicSeparator: ' ',
    userAgent: `vault/${pjson.version} ${platform()}-${arch()} node-${process.version}`,
    version: pjson.version,
  }
  return config as unknown as Config
}
