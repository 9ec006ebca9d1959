import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { connect } from '../../client/connect.js'
import { secretMetadata, type SecretMetadata } from '../../client/vault-api.js'
import { formatColumns } from '../../text/columns.js'

export interface SecretsListResult {
  environment?: string
  secrets: SecretMetadata[]
}

export default class SecretsList extends BaseCommand<typeof SecretsList> {
  static override summary =
    'list the secrets of an environment (names, versions, kinds: secret, template, plain; never values)'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> --env dev', description: 'list dev' },
  ]
  static override enableJsonFlag = true
  static override flags = { ...connectionFlags, env: envFlag }

  async run(): Promise<SecretsListResult> {
    const { api } = await connect(this.flags, (line) => this.note(line))
    const secrets = (await api.listSecretNames(this.flags.env)).map(secretMetadata)
    secrets.sort((a, b) => (a.name < b.name ? -1 : 1))
    if (!this.jsonEnabled() && secrets.length > 0) {
      this.out(
        formatColumns(
          secrets.map((secret) => [
            secret.name,
            String(secret.version),
            secret.updatedAt,
            secret.template ? 'template' : secret.plain ? 'plain' : 'secret',
          ]),
          ['NAME', 'VERSION', 'UPDATED', 'KIND'],
        ),
      )
    }
    return { environment: this.flags.env, secrets }
  }
}
