import * as Args from '@oclif/core/args'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { connect } from '../../client/connect.js'
import type { Secret } from '../../client/vault-api.js'
import { escapeLines } from '../../text/terminal-text.js'

export default class SecretsGet extends BaseCommand<typeof SecretsGet> {
  static override summary = 'print the value of one secret'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev',
      description: 'the value alone',
    },
  ]
  static override enableJsonFlag = true
  static override args = {
    name: Args.string({ required: true, description: 'secret name (UPPER_SNAKE_CASE)' }),
  }
  static override flags = { ...connectionFlags, env: envFlag }

  async run(): Promise<Secret> {
    const { api } = await connect(this.flags, (line) => this.note(line))
    const { name, value, version, createdAt, updatedAt } = await api.getSecret(this.args.name, this.flags.env)
    // to a terminal the value is shown with its control characters escaped; piped, it is byte-exact
    if (!this.jsonEnabled()) process.stdout.write(process.stdout.isTTY ? `${escapeLines(value)}\n` : value)
    return { name, value, version, createdAt, updatedAt }
  }
}
