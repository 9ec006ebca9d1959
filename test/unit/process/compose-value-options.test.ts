/**
 * The one list of compose's global options that take a value, against the real `docker-compose`
 * (v1) help, and both readers of a compose command line using it.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { parseComposeUp } from '../../../src/process/compose-command.js'
import { parseComposeV1 } from '../../../src/process/compose-secret-files.js'
import { composeV1ValueOptions } from '../../../src/process/compose-value-options.js'

const help = spawnSync('docker-compose', ['--help'], { encoding: 'utf8' })
const hasComposeV1 = help.status === 0 && /Commands:/.test(help.stdout)

/** The options of a help text's "Options:" section shown with a value (`-f, --file FILE`, `--ansi (never|...)`). */
function valueOptionsOfHelp(text: string): string[] {
  const section = text.slice(text.indexOf('Options:'), text.indexOf('Commands:'))
  const options: string[] = []
  for (const match of section.matchAll(/^ {2}((?:-\w, )?--[\w-]+) (?:[A-Z_]+|\([^)]*\))/gm))
    options.push(...match[1]!.split(', '))
  return options
}

describe('compose global options that take a value', () => {
  it.skipIf(!hasComposeV1)('are exactly those of `docker-compose --help` (compose v1 installed)', () => {
    expect([...composeV1ValueOptions].sort()).toEqual(valueOptionsOfHelp(help.stdout).sort())
  })

  it.each([
    ['-H', 'tcp://127.0.0.1:2375'],
    ['--tlscacert', 'ca.pem'],
    ['--context', 'remote'],
    ['--log-level', 'INFO'],
  ])('docker-compose %s VALUE up: both readers find the subcommand after the value', (option, value) => {
    const args = [option, value, '-f', 'a.yml', 'up', '-d']
    expect(parseComposeUp('docker-compose', args)).toEqual({ files: ['a.yml'], detached: true })
    expect(parseComposeV1('docker-compose', args)).toMatchObject({
      subcommand: 'up',
      files: ['a.yml'],
      globals: [option, value],
    })
  })
})
