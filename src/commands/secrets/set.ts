import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { connect } from '../../client/connect.js'
import { secretMetadata, type SecretMetadata } from '../../client/vault-api.js'
import { controlsHost } from '../../process/host-variables.js'
import { readSecretValue } from '../../cli/read-secret.js'

export default class SecretsSet extends BaseCommand<typeof SecretsSet> {
  static override summary = 'create or update a secret, reading the value from stdin or a hidden prompt'
  static override description =
    'The value never comes from the command line unless --value is given explicitly (process listings ' +
    'and shell history would show it). One trailing newline of piped input is dropped.'
  static override examples = [
    {
      command: 'printf %s "$PASSWORD" | <%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev',
      description: 'from stdin',
    },
    {
      command: '<%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev',
      description: 'hidden prompt',
    },
  ]
  static override enableJsonFlag = true
  static override args = {
    name: Args.string({ required: true, description: 'secret name (UPPER_SNAKE_CASE)' }),
  }
  static override flags = {
    ...connectionFlags,
    env: envFlag,
    'if-version': Flags.integer({ summary: 'refuse (exit 6) unless the current version is this one' }),
    value: Flags.string({ summary: 'the value itself (visible in process listings: avoid)' }),
  }

  async run(): Promise<SecretMetadata> {
    const value = await readSecretValue({
      name: this.args.name,
      value: this.flags.value,
      warn: (line) => this.note(line),
    })
    if (controlsHost(this.args.name)) {
      this.note(
        `Warning: ${this.args.name} controls the host, not the application: vault run and export --format shell ` +
          `refuse it unless given --allow-env ${this.args.name}`,
      )
    }
    const { api } = await connect(this.flags, (line) => this.note(line))
    const result = await api.putSecret(this.args.name, value, this.flags.env, {
      ifVersion: this.flags['if-version'],
    })
    if (!this.jsonEnabled()) this.note(`${result.name} is now at version ${result.version}`)
    return secretMetadata(result)
  }
}
