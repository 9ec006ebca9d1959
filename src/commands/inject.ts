import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag, fallbackFlags } from '../cli/base-command.js'
import { resolveConnectionSettings } from '../client/connect.js'
import { createSecretLayer } from '../delivery/secret-layer.js'
import { injectTemplate, type InjectResult } from '../delivery/inject.js'
import { ExitCode } from '../errors.js'
import { allowEnvFlag } from '../cli/allow-env-flag.js'

export default class Inject extends BaseCommand<typeof Inject> {
  static override summary = "write a file from a template, with the environment's secrets substituted"
  static override description =
    "References are $NAME and ${NAME...} with compose's syntax, operators and errors (${NAME:-default}, " +
    "${NAME:?message}, $$ for a literal $); the vault's values win over the process environment, whose ENCRYPTION_KEY, JWT_SECRET and DB_URL (the vault server's keys) are withheld unless --allow-env names them. The " +
    'file is written atomically with mode 600. --check reports every problem and writes nothing. ' +
    "--exec runs a shell command after the file is written (to reload a service), without vault's " +
    'credentials in its environment. --watch keeps running: when a secret the template uses changes, ' +
    'the file is rendered again, and rewritten and --exec run only when its content changed; a failed ' +
    'load or render keeps the file as it was. Ctrl-C or SIGTERM stops it.'
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
    {
      command:
        '<%= config.bin %> <%= command.id %> -i haproxy.cfg.tpl -o haproxy.cfg --env prod --watch --exec "systemctl reload haproxy"',
      description: 'render again and reload whenever a secret the template uses changes',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...connectionFlags,
    ...fallbackFlags,
    'allow-env': allowEnvFlag(
      "let the host's ENCRYPTION_KEY, JWT_SECRET or DB_URL reach the template (withheld: the vault server's keys)",
    ),
    check: Flags.boolean({ summary: 'report every problem of the template and write nothing' }),
    env: envFlag,
    exec: Flags.string({ summary: 'shell command to run after the file is written' }),
    input: Flags.file({ char: 'i', summary: 'template file (at most 16 MiB)', required: true }),
    output: Flags.string({ char: 'o', summary: 'file to write (mode 600, atomic); default: stdout' }),
    watch: Flags.boolean({
      summary: 'keep running: render again (and run --exec) when a secret the template uses changes',
      dependsOn: ['output'],
      exclusive: ['check'],
    }),
  }

  async run(): Promise<InjectResult> {
    const { flags } = this
    const warn = (line: string) => this.note(line)
    const settings = await resolveConnectionSettings(flags, warn)
    const fallback = this.fallbackPolicy(warn)
    const layer = createSecretLayer(settings, fallback)
    const { runShellCommand } = await import('../process/child.js')
    const exec = flags.exec ? () => runShellCommand(flags.exec!) : undefined
    if (flags.watch) {
      const { injectWatching } = await import('../delivery/inject-watch.js')
      return injectWatching({
        settings,
        environment: flags.env,
        note: warn,
        templatePath: flags.input,
        outputPath: flags.output!,
        load: () => layer.load(flags.env ?? ''),
        hostEnv: process.env,
        allowEnv: flags['allow-env'],
        exec,
      })
    }
    const { result, text } = await injectTemplate({
      templatePath: flags.input,
      outputPath: flags.output,
      check: flags.check,
      secrets: await layer.load(flags.env ?? ''),
      hostEnv: process.env,
      allowEnv: flags['allow-env'],
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
    const code = await exec?.()
    if (code !== undefined && code !== 0) {
      warn(`Warning: --exec exited with ${code}`)
      process.exitCode = code
    }
    return result
  }
}
