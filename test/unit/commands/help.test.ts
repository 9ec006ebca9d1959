/**
 * Every command's `--help`, in process: exit 0, its summary, usage and examples (each an invocation of
 * that command), and `--json` offered exactly when test/schemas documents the command's answer.
 * The help comes from oclif.manifest.json (what ships): run `make build` after changing a command.
 */
import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { schemaDir, schemaFileFor } from '../../helpers/json-shape.js'
import { runCommand, type RunnableCommand } from '../../helpers/run-command.js'

const commandsDir = fileURLToPath(new URL('../../../src/commands/', import.meta.url))

interface CommandModule {
  default: RunnableCommand & {
    summary?: string
    examples?: (string | { command: string })[]
    enableJsonFlag?: boolean
  }
}

/** The command id of a file under src/commands (`secrets/list.ts` is `secrets:list`, `compose/index.ts` is `compose`). */
function idOf(file: string): string {
  return file
    .replace(/\.ts$/, '')
    .replace(/\/index$/, '')
    .replaceAll('/', ':')
}

const files = readdirSync(commandsDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .sort()

describe('vault <command> --help', () => {
  it('finds the commands', () => {
    expect(files.length).toBeGreaterThan(40)
  })

  it.each(files)('%s', async (file) => {
    const id = idOf(file)
    const { default: Command } = (await import(`${commandsDir}${file}`)) as CommandModule
    const words = id.replaceAll(':', ' ')
    const examples = (Command.examples ?? []).map((example) =>
      typeof example === 'string' ? example : example.command,
    )
    expect(examples.length, `${id} has examples`).toBeGreaterThan(0)
    // an example may pipe into the command or set variables first; it runs this command
    for (const example of examples)
      expect(example).toMatch(/(^|[|;] |=\S* )<%= config\.bin %> <%= command\.id %>( |$)/)

    const help = await runCommand(Command, ['--help'])
    expect(help.exitCode).toBe(0)
    expect(help.stderr).toBe('')
    expect(help.stdout).toContain(`$ vault ${words}`)
    expect(help.stdout).toMatch(/^EXAMPLES$/m)
    for (const line of help.stdout.split('\n').filter((text) => /^ {4}\$ /.test(text)))
      expect(line).toMatch(new RegExp(`vault ${words}( |$)`))
    if (Command.summary)
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(Command.summary.replace(/\s+/g, ' '))
    const hasSchema = existsSync(`${schemaDir}${schemaFileFor(id)}`)
    expect(/^\s+--json\b/m.test(help.stdout), `${id}: --json offered iff ${schemaFileFor(id)} exists`).toBe(
      hasSchema,
    )
  })
})
