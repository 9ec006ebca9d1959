/**
 * The lean runner (see lean.ts): runs one data command with a small stand-in for oclif's Config, no
 * Config.load (package.json, the manifest, plugin discovery, run twice per command by oclif).
 * scripts/bundle.mjs bundles it with each lean command into dist/cli/lean/<id>.js, where oclif's
 * requires of its Config, help and templates are lazy and load from node_modules if ever used.
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

/** A command class as oclif's Command declares it. */
export type CommandClass = Omit<typeof Command, 'prototype'> &
  (new (argv: string[], config: Config) => Command)

/** Runs command `id` with its `argv` (the words after the id) as oclif's execute() would. */
export async function runLean(
  id: string,
  CommandClass: CommandClass,
  argv: string[],
  root: string,
): Promise<unknown> {
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
