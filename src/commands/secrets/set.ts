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
    'and shell history would show it). One trailing newline of piped input is dropped. With --template the ' +
    'value may name other secrets of the environment as ${NAME} ($${ is a literal ${): every reader (run, ' +
    'export, render, inject) receives it resolved, and a rotated secret changes every template that names it. ' +
    'With --plain the value is not a secret (TZ, a domain, a path): render --mask and vault run show it, ' +
    'rotate --due leaves it out, secrets list marks it plain.'
  static override examples = [
    {
      command: 'printf %s "$PASSWORD" | <%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev',
      description: 'from stdin',
    },
    {
      command: '<%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev',
      description: 'hidden prompt',
    },
    {
      command:
        "<%= config.bin %> <%= command.id %> DATABASE_URL --env prod --template --value 'postgresql://app:${POSTGRES_PASSWORD}@db:5432/app'",
      description: 'a connection URL that follows POSTGRES_PASSWORD',
    },
    {
      command: '<%= config.bin %> <%= command.id %> TZ --env prod --plain --value Europe/Berlin',
      description: 'a value that is not a secret',
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
    plain: Flags.boolean({
      summary: 'not a secret (TZ, a domain, a path): never masked, never due for rotation',
      exclusive: ['template'],
    }),
    template: Flags.boolean({
      summary: 'the value names other secrets of the environment as ${NAME}, resolved when read',
    }),
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
    if (this.flags.template) {
      const { checkNewTemplate } = await import('../../client/resolve-templates.js')
      checkNewTemplate(await api.listSecrets(this.flags.env), this.args.name, value)
    }
    const result = await api.putSecret(this.args.name, value, this.flags.env, {
      ifVersion: this.flags['if-version'],
      template: this.flags.template,
      plain: this.flags.plain,
    })
    if (!this.jsonEnabled()) this.note(`${result.name} is now at version ${result.version}`)
    return secretMetadata(result)
  }
}
