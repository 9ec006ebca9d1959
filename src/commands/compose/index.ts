import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { connect } from '../../client/connect.js'
import { formatProviderMessage, providerUp, type ProviderMessage } from '../../delivery/compose-provider.js'
import { formatErrorReport, reportError } from '../../text/error-report.js'
import { allowEnvFlag } from '../../cli/allow-env-flag.js'

export default class Compose extends BaseCommand<typeof Compose> {
  static override summary = 'be a Docker Compose provider: give the services that depend on one their secrets'
  static override description =
    'Compose (2.36 and later) runs this for a service with `provider: {type: vault}` and passes its ' +
    '`provider.options` as flags: `vault compose --project-name=P up --env=E --secrets=NAME... SERVICE`. ' +
    'up prints one JSON message per secret on stdout (rawsetenv: the exact name, compose 5.2+; with ' +
    '--raw=false setenv, which compose delivers as <SERVICE>_NAME), then one info line; any failure is ' +
    'an error message and a non-zero exit, and no secret is sent. --secrets=* sends every secret the ' +
    'identity reads in the environment. Credentials are resolved as for `vault run`, from the working ' +
    'directory compose runs in; names that control a process (PATH, LD_*, DOCKER_*, ...) are refused ' +
    'unless --allow-env names them. down and stop change nothing. See `vault compose metadata`.'
  static override examples = [
    {
      command:
        '<%= config.bin %> <%= command.id %> --project-name=homelab up --env=prod --secrets=DB_PASSWORD secrets',
      description:
        'what compose runs for `provider: {type: vault, options: {env: prod, secrets: [DB_PASSWORD]}}`',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> --project-name=homelab up --env=dev --secrets=* --raw=false secrets',
      description: 'every secret of dev, as SECRETS_<NAME> (compose before 5.2)',
    },
  ]
  static override args = {
    action: Args.string({
      required: true,
      options: ['up', 'down', 'stop'],
      description: "compose's lifecycle step",
    }),
    service: Args.string({ required: true, description: "the provider service's name" }),
  }
  static override flags = {
    ...connectionFlags,
    'allow-env': allowEnvFlag(
      'let a secret whose name controls a process (PATH, LD_*, DOCKER_*, ...) through',
    ),
    env: envFlag,
    'project-name': Flags.string({ summary: 'the compose project (compose passes it; nothing is kept)' }),
    raw: Flags.option({ options: ['true', 'false'] as const })({
      summary: 'true: exact names (rawsetenv); false: names prefixed with the service (setenv)',
      default: 'true',
    }),
    secrets: Flags.string({
      summary: 'a secret to send (repeat, or comma-separated), or * for every one',
      multiple: true,
      multipleNonGreedy: true,
      delimiter: ',',
    }),
  }

  async run(): Promise<void> {
    if (this.args.action !== 'up') return
    const { api } = await connect(this.flags, (line) => this.note(line))
    const messages = await providerUp(api, {
      environment: this.flags.env,
      secrets: this.flags.secrets ?? [],
      raw: this.flags.raw === 'true',
      service: this.args.service,
      allowEnv: this.flags['allow-env'],
    })
    writeMessages(messages)
  }

  /** Any failure, parse errors included: an error message for compose on stdout, the usual line on stderr. */
  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    const report = reportError(error)
    const message = report.hint ? `${report.message}; ${report.hint}` : report.message
    writeMessages([{ type: 'error', message }])
    this.logToStderr(formatErrorReport(report))
    return this.exit(report.exitCode)
  }
}

function writeMessages(messages: ProviderMessage[]): void {
  process.stdout.write(messages.map(formatProviderMessage).join(''))
}
