import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag, fallbackFlags } from '../base-command.js'
import { resolveConnectionSettings } from '../client/connect.js'
import { createSecretLayer } from '../client/secret-layer.js'
import { injectTemplate, type InjectResult } from '../delivery/inject.js'
import { ExitCode } from '../errors.js'

export default class Inject extends BaseCommand<typeof Inject> {
  static override summary = "write a file from a template, with the environment's secrets substituted"
  static override description =
    "References are $NAME and ${NAME...} with compose's syntax, operators and errors (${NAME:-default}, " +
    "${NAME:?message}, $$ for a literal $); the vault's values win over the process environment. The " +
    'file is written atomically with mode 600. --check reports every problem and writes nothing. ' +
    '--exec runs a shell command after the file is written (to reload a service).'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> -i nginx.conf.tpl -o nginx.conf --env prod',
      description: 'render a config file',
    },
    {
      command: '<%= config.bin %> <%= command.id %> -i app.ini.tpl --env dev --check',
      description: 'list missing variables and malformed references',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> -i haproxy.cfg.tpl -o haproxy.cfg --env prod --exec "systemctl reload haproxy"',
      description: 'render, then reload',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...connectionFlags,
    ...fallbackFlags,
    check: Flags.boolean({ summary: 'report every problem of the template and write nothing' }),
    env: envFlag,
    exec: Flags.string({ summary: 'shell command to run after the file is written' }),
    input: Flags.file({ char: 'i', summary: 'template file', required: true, exists: true }),
    output: Flags.string({ char: 'o', summary: 'file to write (mode 600, atomic); default: stdout' }),
  }

  async run(): Promise<InjectResult> {
    const { flags } = this
    const warn = (line: string) => this.note(line)
    const settings = await resolveConnectionSettings(flags, warn)
    const fallback = { flags, warn: (line: string) => warn(`Warning: ${line}`) }
    const secrets = await createSecretLayer(settings, fallback).load(flags.env ?? '')
    const { result, text } = await injectTemplate({
      templatePath: flags.input,
      outputPath: flags.output,
      check: flags.check,
      secrets,
      hostEnv: process.env,
    })
    for (const problem of result.problems)
      warn(`${problem.level === 'error' ? 'Error' : 'Warning'}: ${problem.message}`)
    if (flags.check) {
      if (result.problems.some((problem) => problem.level === 'error'))
        process.exitCode = ExitCode.notConfigured
      else if (!this.jsonEnabled()) warn(`${flags.input}: ${result.variables} variables, no errors`)
      return result
    }
    if (flags.output) {
      if (!this.jsonEnabled()) warn(`wrote ${flags.output} (mode 600)`)
    } else if (!this.jsonEnabled()) {
      if (process.stdout.isTTY) warn('Warning: printing secret values to a terminal')
      process.stdout.write(text)
    }
    if (flags.exec) {
      const { runChild } = await import('../process/child.js')
      const env = Object.fromEntries(
        Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
      )
      const code = await runChild('sh', ['-c', flags.exec], { env })
      if (code !== 0) {
        warn(`Warning: --exec exited with ${code}`)
        process.exitCode = code
      }
    }
    return result
  }
}
