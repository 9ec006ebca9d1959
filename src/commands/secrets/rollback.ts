import * as Args from '@oclif/core/args'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { connect } from '../../client/connect.js'
import { secretMetadata, type SecretMetadata } from '../../client/vault-api.js'

export default class SecretsRollback extends BaseCommand<typeof SecretsRollback> {
  static override summary = "write a new version holding an earlier version's value"
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> DATABASE_PASSWORD 3 --env dev',
      description: 'back to version 3',
    },
  ]
  static override enableJsonFlag = true
  static override args = {
    name: Args.string({ required: true, description: 'secret name' }),
    version: Args.integer({ required: true, description: 'the version whose value to restore', min: 1 }),
  }
  static override flags = { ...connectionFlags, env: envFlag }

  async run(): Promise<SecretMetadata> {
    const { api } = await connect(this.flags, (line) => this.note(line))
    const result = await api.rollback(this.args.name, this.args.version, this.flags.env)
    if (!this.jsonEnabled()) {
      this.note(
        `${result.name} is now at version ${result.version} (the value of version ${this.args.version})`,
      )
    }
    return secretMetadata(result)
  }
}
