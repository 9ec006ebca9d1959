import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { connect } from '../../client/connect.js'

export interface SecretsDeleteResult {
  name: string
  deleted: true
}

export default class SecretsDelete extends BaseCommand<typeof SecretsDelete> {
  static override summary = 'delete a secret (its versions stay in the history)'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> OLD_TOKEN --env dev', description: 'delete' },
  ]
  static override enableJsonFlag = true
  static override args = { name: Args.string({ required: true, description: 'secret name' }) }
  static override flags = {
    ...connectionFlags,
    env: envFlag,
    'if-version': Flags.integer({ summary: 'refuse (exit 6) unless the current version is this one' }),
  }

  async run(): Promise<SecretsDeleteResult> {
    const { api } = await connect(this.flags, (line) => this.note(line))
    await api.deleteSecret(this.args.name, this.flags.env, { ifVersion: this.flags['if-version'] })
    if (!this.jsonEnabled()) this.note(`deleted ${this.args.name}`)
    return { name: this.args.name, deleted: true }
  }
}
