import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag, fallbackFlags } from '../cli/base-command.js'
import { connect } from '../client/connect.js'
import { fetchSecrets, sessionOptionsFor } from '../delivery/fallback-request.js'
import { describeCaveats, exportSecrets } from '../export/export-secrets.js'
import { exportFormats } from '../export/format.js'
import { escapeLines } from '../text/terminal-text.js'
import { allowEnvFlag } from '../cli/allow-env-flag.js'

export default class Export extends BaseCommand<typeof Export> {
  static override summary = 'print every secret of an environment (dotenv, json, yaml or shell)'
  static override description =
    'Values are quoted so that compose and a POSIX shell read them back unchanged. Do not run this in ' +
    'untrusted environments: prefer `vault run`, which never writes values anywhere. --output-file is ' +
    'written atomically with mode 600. Output the host reads as its own configuration refuses a secret whose ' +
    'name controls the host (PATH, BASH_ENV, LD_*, DOCKER_*, COMPOSE_*, ... as `vault run` does; exit 4) ' +
    'unless --allow-env names it: --format shell (for eval), and dotenv on stdout or into a file named .env ' +
    '(compose reads DOCKER_HOST and COMPOSE_* from it); dotenv into any other file only warns.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> --env dev', description: 'dotenv on stdout' },
    {
      command: '<%= config.bin %> <%= command.id %> --env prod --format json --output-file secrets.json',
      description: 'a mode-600 JSON file',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> --env prod --output-file .env --allow-env COMPOSE_PROJECT_NAME',
      description: "a .env for compose that sets compose's own project name",
    },
    {
      command: '<%= config.bin %> <%= command.id %> --env prod --fallback > app.env',
      description: 'use the offline copy at once when the vault is down',
    },
  ]
  static override flags = {
    ...connectionFlags,
    ...fallbackFlags,
    'allow-env': allowEnvFlag(
      'let a secret whose name controls the host into shell output, stdout dotenv or a .env file (DOCKER_HOST, ...)',
    ),
    env: envFlag,
    format: Flags.option({ options: exportFormats })({
      char: 'f',
      summary: 'output format',
      default: 'dotenv',
    }),
    'output-file': Flags.file({
      char: 'o',
      summary: 'write to this file (mode 600, atomic) instead of stdout',
    }),
  }

  async run(): Promise<void> {
    const fallback = this.fallbackPolicy((line) => this.note(line))
    const { api, settings } = await connect(
      this.flags,
      (line) => this.note(line),
      sessionOptionsFor(fallback),
    )
    const outputFile = this.flags['output-file']
    const target = { domain: settings.domain, projectId: settings.projectId, environment: this.flags.env }
    const outcome = await exportSecrets(
      { listSecrets: (environment) => fetchSecrets(fallback, target, () => api.listSecrets(environment)) },
      {
        environment: this.flags.env,
        format: this.flags.format,
        outputFile,
        allowEnv: this.flags['allow-env'],
      },
    )
    const caveat = describeCaveats(outcome.caveats)
    if (caveat) this.note(`Warning: ${caveat}`)
    if (outcome.hostVariables.length > 0)
      this.note(
        `Warning: ${outcome.hostVariables.join(', ')} ${outcome.hostVariables.length > 1 ? 'control' : 'controls'} the host: do not use ${outputFile} as compose's .env or source it in a shell`,
      )
    if (outputFile) {
      this.note(`wrote ${outcome.count} secrets to ${outputFile} (mode 600)`)
      return
    }
    if (process.stdout.isTTY) {
      // shown to a person: control characters escaped (piped output stays byte-exact)
      this.note('Warning: printing secret values to a terminal')
      process.stdout.write(escapeLines(outcome.text))
    } else process.stdout.write(outcome.text)
  }
}
