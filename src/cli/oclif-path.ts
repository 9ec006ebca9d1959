/**
 * The full oclif path: every command line that the lean path (lean.ts) does not take. When the command
 * line names one of vault's own commands, oclif gets vault's plugin alone and skips loading its core
 * plugins (completion, "did you mean"), which only matter for other command lines: that keeps several
 * milliseconds off those commands.
 */
import { Plugin } from '@oclif/core/config'
import { execute } from '@oclif/core/execute'
import { fileURLToPath } from 'node:url'
import { redactDebugOutput } from './debug-redaction.js'
import { namesOwnCommand } from './own-command.js'

/** Runs `argv` through oclif; `binUrl` is bin/run.js's own URL (oclif finds package.json from it). */
export async function runOclif(binUrl: string, argv: string[]): Promise<unknown> {
  redactDebugOutput(argv)
  const vault = await loadVaultPlugin(binUrl)
  const ids = vault?.commands.flatMap((command) => [command.id, ...(command.aliases ?? [])]) ?? []
  if (!vault || !namesOwnCommand(argv, ids)) return execute({ dir: binUrl, args: argv })
  return execute({ args: argv, loadOptions: { root: vault.root, plugins: new Map([[vault.name, vault]]) } })
}

/** Vault's own oclif plugin, or undefined when it cannot load (oclif's full path then reports why). */
async function loadVaultPlugin(binUrl: string): Promise<Plugin | undefined> {
  const vault = new Plugin({ root: fileURLToPath(new URL('..', binUrl)), isRoot: true })
  try {
    await vault.load()
    return vault
  } catch {
    return undefined
  }
}
